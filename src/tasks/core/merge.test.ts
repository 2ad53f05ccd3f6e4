import { describe, expect, it } from 'vitest';
import { ClockOffsetEstimator, mergeSnapshot, nextProbe } from './merge';
import type { TaskSnapshot } from '../../mcp';

const snap = (over: Partial<TaskSnapshot> = {}): TaskSnapshot => ({
  taskId: 't',
  status: 'working',
  createdAt: '2026-11-30T10:00:00.000Z',
  createdAtMs: 1000,
  lastUpdatedAtMs: 1000,
  ttl: 60_000,
  pollInterval: 1000,
  shape: 'flat',
  ...over,
});

describe('mergeSnapshot', () => {
  it('takes the new answer, keeping the old status when the new one is unusable', () => {
    expect(mergeSnapshot(snap(), snap({ status: null, statusMessage: 'x' }))).toMatchObject({
      status: 'working',
      statusMessage: 'x',
    });
  });
  it('never leaves a terminal status', () => {
    expect(mergeSnapshot(snap({ status: 'failed' }), snap({ status: 'working' })).status).toBe('failed');
  });
  it('keeps createdAt and ttl when an answer lacks them, but takes a new pollInterval or its absence', () => {
    const merged = mergeSnapshot(
      snap(),
      snap({ createdAt: undefined, createdAtMs: undefined, ttl: undefined, pollInterval: undefined }),
    );
    expect(merged).toMatchObject({ createdAtMs: 1000, ttl: 60_000, pollInterval: undefined });
    expect(mergeSnapshot(snap(), snap({ ttl: null })).ttl).toBeNull();
  });
});

describe('ClockOffsetEstimator', () => {
  it('learns from fresh timestamps only and reports changes', () => {
    const clock = new ClockOffsetEstimator();
    expect(clock.note(snap({ lastUpdatedAtMs: 5000 }), undefined, 1000)).toBe(4000);
    expect(
      clock.note(snap({ lastUpdatedAtMs: 5000 }), snap({ lastUpdatedAtMs: 5000 }), 9000),
    ).toBeUndefined();
    expect(
      clock.note(snap({ lastUpdatedAtMs: 6000 }), snap({ lastUpdatedAtMs: 5000 }), 3000),
    ).toBeUndefined(); // 3000 < 4000
    expect(clock.note(snap({ lastUpdatedAtMs: 9500 }), snap({ lastUpdatedAtMs: 6000 }), 5000)).toBe(4500);
    expect(clock.count).toBe(3);
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
