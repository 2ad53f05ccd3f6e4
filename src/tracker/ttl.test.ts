import { describe, expect, it } from 'vitest';
import {
  estimateClockOffset,
  formatDateTime,
  formatDuration,
  formatMs,
  localTaskTimes,
  ttlPhase,
} from './ttl';

const created = Date.parse('2026-11-30T10:00:00.000Z');

describe('ttlPhase', () => {
  it('counts down to createdAt + ttl', () => {
    expect(ttlPhase({ createdAtMs: created, ttl: 10_000 }, created + 4000, 0)).toEqual({
      kind: 'counting',
      remainingMs: 6000,
      expiresAtLocal: created + 10_000,
    });
  });
  it('corrects for a server clock that runs ahead', () => {
    // The server is 5 s ahead: its createdAt is 5 s later than our clock said at that moment.
    const phase = ttlPhase({ createdAtMs: created + 5000, ttl: 10_000 }, created + 4000, 5000);
    expect(phase).toMatchObject({ kind: 'counting', remainingMs: 6000 });
  });
  it('is expired at zero and after', () => {
    expect(ttlPhase({ createdAtMs: created, ttl: 10_000 }, created + 10_000, 0).kind).toBe('expired');
  });
  it('ttl null means no expiry; unknown ttl or createdAt means unknown', () => {
    expect(ttlPhase({ createdAtMs: created, ttl: null }, created, 0).kind).toBe('none');
    expect(ttlPhase({ createdAtMs: created, ttl: undefined }, created, 0).kind).toBe('unknown');
    expect(ttlPhase({ createdAtMs: undefined, ttl: 1000 }, created, 0).kind).toBe('unknown');
  });
  it('purged wins over everything', () =>
    expect(ttlPhase({ createdAtMs: created, ttl: null }, created, 0, true).kind).toBe('purged'));
});

describe('estimateClockOffset', () => {
  it('takes the freshest (largest) sample; none means no offset', () => {
    expect(estimateClockOffset([])).toBe(0);
    expect(estimateClockOffset([4200, 4950, 4600])).toBe(4950);
    expect(estimateClockOffset([-3100, -2980])).toBe(-2980);
  });
});

describe('formatting', () => {
  it('formats countdowns as clock times, never raw ms', () => {
    expect(formatDuration(7_000)).toBe('0:07');
    expect(formatDuration(249_001)).toBe('4:10');
    expect(formatDuration(3_909_000)).toBe('1:05:09');
    expect(formatDuration(-5)).toBe('0:00');
  });
  it('formats latencies and intervals', () => {
    expect(formatMs(850)).toBe('850 ms');
    expect(formatMs(1500)).toBe('1.5 s');
    expect(formatMs(12_000)).toBe('12 s');
    expect(formatMs(120_000)).toBe('2 min');
  });
});

describe('localTaskTimes', () => {
  it('puts createdAt and the TTL deadline on the local clock, corrected like the countdown', () => {
    // The receiver runs 5 s ahead.
    expect(localTaskTimes({ createdAtMs: created + 5000, ttl: 10_000 }, 5000)).toEqual({
      createdAt: created,
      ttlDeadline: created + 10_000,
    });
  });
  it('has no deadline for no expiry or an absurd ttl, and nothing without createdAt', () => {
    expect(localTaskTimes({ createdAtMs: created, ttl: null }, 0)).toEqual({ createdAt: created });
    expect(localTaskTimes({ createdAtMs: created, ttl: 1e300 }, 0)).toEqual({ createdAt: created });
    expect(localTaskTimes({ createdAtMs: undefined, ttl: 1000 }, 0)).toEqual({});
  });
});

describe('formatDateTime', () => {
  it('reads as the date then the 24-hour clock, in local time, whatever the locale', () => {
    const at = new Date(2026, 11, 1, 21, 4, 5, 678).getTime();
    expect(formatDateTime(at)).toBe('2026-12-01 21:04:05');
    expect(formatDateTime(Number.NaN)).toBe('—');
  });
});
