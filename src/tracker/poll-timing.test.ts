import { describe, expect, it } from 'vitest';
import { MAX_BACKOFF_MS, nextBackoff } from '../mcp';
import { DEFAULT_POLL_INTERVAL_MS, nextProbe, pollDelay } from './poll-timing';

const base = { userMinimumMs: 0, backoffMs: 0, now: 10_000 };

describe('pollDelay: the largest of everything that asks us to wait', () => {
  it('is the receiver’s pollInterval', () => expect(pollDelay({ ...base, pollInterval: 2500 })).toBe(2500));
  it('is 1 s when the receiver gives none', () => expect(pollDelay(base)).toBe(DEFAULT_POLL_INTERVAL_MS));
  it('a user minimum only ever slows it', () => {
    expect(pollDelay({ ...base, pollInterval: 500, userMinimumMs: 2000 })).toBe(2000);
    expect(pollDelay({ ...base, pollInterval: 5000, userMinimumMs: 2000 })).toBe(5000);
  });
  it('backoff wins while it is longer', () =>
    expect(pollDelay({ ...base, pollInterval: 1000, backoffMs: 8000 })).toBe(8000));
  it('Retry-After counts from now', () => {
    expect(pollDelay({ ...base, pollInterval: 1000, retryAfterUntil: 14_000 })).toBe(4000);
    expect(pollDelay({ ...base, pollInterval: 1000, retryAfterUntil: 9_000 })).toBe(1000);
  });
});

describe('nextBackoff', () => {
  it('doubles from 1 s and stops at 30 s', () => {
    const seen: number[] = [];
    let b = 0;
    for (let i = 0; i < 8; i++) seen.push((b = nextBackoff(b)));
    expect(seen).toEqual([1000, 2000, 4000, 8000, 16000, MAX_BACKOFF_MS, MAX_BACKOFF_MS, MAX_BACKOFF_MS]);
  });
});

describe('nextProbe', () => {
  it('asks one pollInterval after expiry, then backs off doubling to 30 s', () => {
    const first = nextProbe({
      expiresAtLocal: 10_000,
      now: 4000,
      probes: 0,
      lastGapMs: 0,
      pollInterval: 500,
    });
    expect(first).toEqual({ delayMs: 6500, gapMs: 500 });
    let gap = first.gapMs;
    const gaps = [];
    for (let probes = 1; probes < 8; probes++)
      gaps.push(
        (gap = nextProbe({ expiresAtLocal: 0, now: 1, probes, lastGapMs: gap, pollInterval: 500 }).gapMs),
      );
    expect(gaps).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
});
