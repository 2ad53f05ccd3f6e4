import type { QueryClient } from '@tanstack/query-core';
import type { TasksApi } from '../mcp';
import type { TasksStore } from './task-store';
import type { RequestScheduler } from './request-scheduler';

/** The part of TasksApi the tracker uses; tests may hand in a receiver of their own shape. */
export type TaskApiPort = Pick<
  TasksApi,
  'getTask' | 'getTaskResult' | 'cancelTask' | 'listTasks' | 'onTaskStatus'
> &
  Partial<Pick<TasksApi, 'onTaskActivity'>>;

export interface Clock {
  now: () => number;
  /**
   * A clock that only moves forward (ms from any origin), for timers that share one timer beneath
   * (TimerQueue): the wall clock set back or forward must not delay or hasten them. `now` when absent.
   */
  elapsed?: () => number;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

/** The longest delay a JavaScript timer holds: anything longer fires at once (browsers and Node alike). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A timer for any delay: one longer than MAX_TIMER_MS is chained in steps, so a pollInterval of 1e12 ms (or a
 * Retry-After of a month) waits that long instead of firing at once. A NaN or negative delay waits 0.
 */
export function chainTimeout(
  fn: () => void,
  ms: number,
  timers: Pick<typeof globalThis, 'setTimeout' | 'clearTimeout'> = globalThis,
  now: () => number = Date.now,
): { cancel: () => void } {
  const due = now() + (Number.isFinite(ms) ? Math.max(0, ms) : ms > 0 ? Infinity : 0);
  let handle: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    const left = due - now();
    handle =
      left > MAX_TIMER_MS ? timers.setTimeout(arm, MAX_TIMER_MS) : timers.setTimeout(fn, Math.max(0, left));
  };
  arm();
  return { cancel: () => timers.clearTimeout(handle) };
}

export const systemClock: Clock = {
  now: () => Date.now(),
  elapsed: () => performance.now(),
  // Looked up at call time so fake timers installed by a test after import are the ones used.
  setTimeout: (fn, ms) => chainTimeout(fn, ms, globalThis, () => Date.now()),
  clearTimeout: (handle) => (handle as { cancel?: () => void } | undefined)?.cancel?.(),
};

export interface TrackerSettings {
  paused: boolean;
  minPollIntervalMs: number;
}

export interface TrackerDeps {
  api: TaskApiPort;
  queryClient: QueryClient;
  connectionId: number;
  store?: TasksStore;
  clock?: Clock;
  settings?: () => TrackerSettings;
  /**
   * Open tasks/result when a task goes input_required, so the receiver can ask its questions on it
   * (2025-11-25: the requestor SHOULD). Off for receivers of other protocol versions; a function when the
   * receiver's version is known only once a session is up.
   */
  openResultForInput?: boolean | (() => boolean);
  /** The receiver's connection budget; without one every request goes out at once. */
  scheduler?: Pick<RequestScheduler, 'run'>;
  /** Tasks polled on their own before listed or pushed ones go dormant; MAX_POLLED_TASKS by default. */
  maxPolledTasks?: number;
  /** The receiver's current session id (none for sessionless receivers, or between sessions). */
  sessionId?: () => string | undefined;
}
