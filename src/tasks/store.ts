import { create } from 'zustand';
import { useStore } from 'zustand';
import type { ListStatus, PollingHealth } from '../engine/messages';
import { createTasksStore, type TasksState } from './core/store';

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
