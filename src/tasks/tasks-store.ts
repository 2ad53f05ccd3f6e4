import { create } from 'zustand';
import { useStore } from 'zustand';
import type { ListStatus, PollingHealth } from '../engine/messages';
import { createTasksStore, type TasksState } from '../tracker/task-store';

/**
 * The page's copy of the current connection's task records, filled only from the engine's batches (the
 * tracker itself runs in the engine's Worker). Selectors should pick one task, or ids and counts.
 */
export const tasksStore = createTasksStore();

export function useTasks<T>(selector: (state: TasksState) => T): T {
  return useStore(tasksStore, selector);
}

/** How the last tasks/list went, for the refresh button and its error line. */
export const useTaskListStatus = create<ListStatus>()(() => ({ loading: false }));

/** Whether polling keeps up with what the tasks ask (the browser caps how many requests a page sends). */
export const usePollingHealth = create<{ health?: PollingHealth }>()(() => ({}));

/** Forgets the previous connection's tasks on the page (a new connect, a disconnect). */
export function resetTaskRecords(): void {
  tasksStore.setState({
    tasks: new Map(),
    order: [],
    version: 0,
    clockOffsetMs: 0,
    clockSamples: 0,
    dialects: [],
    untrackedSeen: 0,
  });
  useTaskListStatus.setState({
    loading: false,
    lastSyncedAt: undefined,
    error: undefined,
    stopped: undefined,
  });
  usePollingHealth.setState({ health: undefined });
}
