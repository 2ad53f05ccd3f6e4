import type { QueryClient } from '@tanstack/query-core';
import type { TasksApi } from '../../mcp';
import type { TasksStore } from './store';
import type { RequestScheduler } from './request-scheduler';

/** The part of TasksApi the tracker uses; tests may hand in a receiver of their own shape. */
export type TaskApiPort = Pick<
  TasksApi,
  'getTask' | 'getTaskResult' | 'cancelTask' | 'listTasks' | 'onTaskStatus'
>;

export interface Clock {
  now: () => number;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
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
   * (2025-11-25: the requestor SHOULD). Off for receivers of other protocol versions.
   */
  openResultForInput?: boolean;
  /** The receiver's connection budget; without one every request goes out at once. */
  scheduler?: Pick<RequestScheduler, 'run'>;
}
