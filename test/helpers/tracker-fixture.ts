import type { QueryClient } from '@tanstack/query-core';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { createQueryClient } from '../../src/tracker/queries';
import { normaliseTask } from '../../src/mcp';
import { TaskTracker, type TrackerSettings } from '../../src/tracker/tracker';
import type { TrackedTask } from '../../src/tracker/task-store';
import { ScriptedReceiver, rawTask } from './scripted-receiver';

export interface TrackerContext {
  receiver: ScriptedReceiver;
  tracker: TaskTracker;
  /** The Worker's query cache, as the engine makes it (no structural sharing). */
  queryClient: QueryClient;
  settings: TrackerSettings;
}

/**
 * Fake time, a scripted receiver and a tracker per test; after each test the tracker is disposed and must
 * leave no timer behind (no poll, probe or retry may fire after its connection is gone).
 */
export function trackerFixture() {
  const ctx = {} as TrackerContext;
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse('2026-11-30T10:00:00.000Z') });
    ctx.receiver = new ScriptedReceiver();
    ctx.settings = { paused: false, minPollIntervalMs: 0 };
    ctx.queryClient = createQueryClient({ sharing: false });
    ctx.tracker = new TaskTracker({ api: ctx.receiver, queryClient: ctx.queryClient, connectionId: 1 });
  });
  afterEach(() => {
    ctx.tracker.dispose();
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
  });
  /** Tracks task t1 as just created, with the fixture's settings. */
  const start = (initial = rawTask()) => {
    ctx.tracker.dispose();
    ctx.queryClient = createQueryClient({ sharing: false });
    ctx.tracker = new TaskTracker({
      api: ctx.receiver,
      queryClient: ctx.queryClient,
      connectionId: 1,
      settings: () => ctx.settings,
    });
    ctx.tracker.track('t1', {
      origin: 'created',
      tool: 'slow_job',
      initial: normaliseTask({ task: initial }),
    });
  };
  const task = (): TrackedTask => ctx.tracker.store.getState().tasks.get('t1')!;
  const polls = () => ctx.receiver.count('tasks/get', 't1');
  return { ctx, start, task, polls };
}
