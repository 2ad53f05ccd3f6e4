import type { QueryClient } from '@tanstack/query-core';
import type { Normalised, TaskResultSnapshot, TaskSnapshot } from '../mcp';
import type { TaskPoller } from './poller';
import { queryKeys } from './queries';
import type { TasksStore, TimelineEntry, TrackedTask } from './task-store';
import type { Clock } from './tracker-types';

/** A task as history kept it (engine/history): shown again at once, polled once its session is known. */
export interface RestoredTask {
  record: Omit<TrackedTask, 'entries'>;
  entries: TimelineEntry[];
  snapshot?: TaskSnapshot;
  result?: Normalised<TaskResultSnapshot>;
}

export interface TrackerHistoryDeps {
  store: TasksStore;
  clock: Clock;
  connectionId: number;
  queryClient: QueryClient;
  poller: Pick<TaskPoller, 'has' | 'add' | 'remove'>;
  /** The tracker's latest merged snapshots, which restored tasks join and forgotten ones leave. */
  snapshots: Map<string, TaskSnapshot>;
  /** Tells the session bookkeeping a task is gone. */
  forget: (taskId: string) => void;
}

/**
 * Tasks that come back from the page's history, or leave it when a person clears it: the only ways a task
 * appears or disappears without an answer from the receiver, so they follow rules of their own (what of a
 * record still holds after a reload; what a clear may drop) and are kept apart from the tracker's merging.
 */
export class TrackerHistory {
  constructor(private readonly deps: TrackerHistoryDeps) {}

  /**
   * Puts back what history kept, as it was. Nothing is polled yet: whether a live task can be, depends on the
   * session it belonged to (sessionReady). A request that was open when the page went away is not open now.
   */
  restore(tasks: readonly RestoredTask[]): void {
    const { store, clock, connectionId, queryClient, poller, snapshots } = this.deps;
    const restored: string[] = [];
    for (const { record, entries, snapshot, result } of tasks) {
      if (poller.has(record.taskId)) continue;
      poller.add(record.taskId);
      restored.push(record.taskId);
      const resultState: TrackedTask['result'] = result
        ? record.result.state === 'fetched'
          ? record.result
          : { state: 'fetched', at: clock.now() }
        : record.result.state === 'unavailable' || record.result.state === 'not-ready'
          ? record.result
          : { state: 'none' };
      store.getState().tasks.set(record.taskId, {
        ...record,
        // An old value is not where the task stands now: the view says when it was reported.
        ...(record.progress ? { progress: { ...record.progress, restored: true } } : {}),
        entries,
        connectionId,
        nextPollInMs: null,
        backoffMs: 0,
        lastError: record.lifecycle === 'live' ? undefined : record.lastError,
        result: resultState,
      });
      if (snapshot) {
        snapshots.set(record.taskId, snapshot);
        queryClient.setQueryData(queryKeys.task(connectionId, record.taskId), snapshot);
      }
      if (result) queryClient.setQueryData(queryKeys.taskResult(connectionId, record.taskId), result);
    }
    if (restored.length === 0) return;
    store.setState((state) => {
      for (const taskId of restored) state.order.push(taskId);
      return { version: state.version + 1 };
    });
  }

  /**
   * Forgets tasks entirely (a person cleared history). Live ones are kept, another tab's too: that tab is
   * still running them. Returns the ids forgotten.
   */
  forgetEnded(): string[] {
    const { store, connectionId, queryClient, poller, snapshots } = this.deps;
    const gone: string[] = [];
    for (const task of store.getState().tasks.values()) {
      if (task.lifecycle === 'live') continue;
      gone.push(task.taskId);
      poller.remove(task.taskId);
      snapshots.delete(task.taskId);
      this.deps.forget(task.taskId);
      queryClient.removeQueries({ queryKey: queryKeys.task(connectionId, task.taskId) });
    }
    if (gone.length === 0) return gone;
    const set = new Set(gone);
    store.setState((state) => {
      for (const taskId of gone) state.tasks.delete(taskId);
      return { order: state.order.filter((taskId) => !set.has(taskId)), version: state.version + 1 };
    });
    return gone;
  }
}
