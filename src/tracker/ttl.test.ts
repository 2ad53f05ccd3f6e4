import { describe, expect, it } from 'vitest';
import { localTaskTimes, ttlPhase } from './ttl';

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
