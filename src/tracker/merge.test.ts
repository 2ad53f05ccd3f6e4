import { describe, expect, it } from 'vitest';
import { mergeSnapshot } from './merge';
import type { TaskSnapshot } from '../mcp';

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
