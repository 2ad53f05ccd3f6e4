import { create } from 'zustand';
import { useStore } from 'zustand';
import type { ListStatus, PollingHealth } from '../engine/messages';
import type { OverviewChanges, TaskListWindow, TaskSummary } from '../engine/task-views';
import { createTasksStore, type TasksState } from '../tracker/task-store';

/**
 * The page's copy of the records of the tasks it shows (the list's rows in view and around, the open task; all
 * of them while the report card is open or an export runs), filled only from the engine's batches: the
 * tracker itself runs in the engine's Worker and keeps every record. Selectors should pick one task.
 */
export const tasksStore = createTasksStore();

export function useTasks<T>(selector: (state: TasksState) => T): T {
  return useStore(tasksStore, selector);
}

/** The task list as the engine computed it for the page's filter and search: its length, the rows asked for, counts. */
export const useTaskList = create<{ list?: TaskListWindow }>()(() => ({}));

/** The overview's summary of every task, while it is open; order is first tracked first. */
export const useOverview = create<{ order: string[]; summaries: Map<string, TaskSummary> }>()(() => ({
  order: [],
  summaries: new Map(),
}));

export function applyOverview(changes: OverviewChanges): void {
  useOverview.setState((state) => {
    const summaries = changes.sync ? new Map<string, TaskSummary>() : new Map(state.summaries);
    for (const summary of changes.changed) summaries.set(summary.taskId, summary);
    // Tasks forgotten (Clear) leave the order: their summaries go too, so the axis no longer starts at them.
    if (changes.order && summaries.size > changes.order.length) {
      const kept = new Set(changes.order);
      for (const taskId of summaries.keys()) if (!kept.has(taskId)) summaries.delete(taskId);
    }
    return { order: changes.order ?? state.order, summaries };
  });
}

/** The overview closed: the engine stops sending its summaries, and the next opening starts afresh. */
export function forgetOverview(): void {
  useOverview.setState({ order: [], summaries: new Map() });
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
  useTaskList.setState({ list: undefined });
  forgetOverview();
  useTaskListStatus.setState({
    loading: false,
    lastSyncedAt: undefined,
    error: undefined,
    stopped: undefined,
  });
  usePollingHealth.setState({ health: undefined });
}
