import { replaceEqualDeep } from '@tanstack/react-query';
import { createStore, useStore } from 'zustand';
import type { Batch, ListStatus, PollingHealth } from '../engine/messages';
import type { OverviewChanges, TaskListWindow, TaskSummary } from '../engine/task-views';
import type { Normalised, TaskResultSnapshot, TaskSnapshot } from '../mcp';
import { withTaskChanges } from '../tracker/task-changes';
import { emptyTasksState, type TasksState } from '../tracker/task-store';

/**
 * The page's one store of what it shows of one connection's tasks (or a replay's), filled only from the
 * engine's batches: the tracker itself runs in the engine's Worker and keeps every record. One slice per part
 * of a batch, each with its fresh state; `reset` starts them all afresh at once. Selectors pick one task:
 * the Maps are updated in place with a new object only for a task that changed, so a poll of another task
 * re-renders nothing that reads this one.
 */

/**
 * The records of the tasks the page shows (the list's rows in view and around, the open task; all of them
 * while the report card is open or an export runs).
 */
type RecordsSlice = TasksState;

/** The task list as the engine computed it for the page's filter and search: its length, the rows asked for, counts. */
interface ListSlice {
  list?: TaskListWindow;
}

/** The overview's summary of every task, while it is open; order is first tracked first. */
interface OverviewSlice {
  overview: { order: string[]; summaries: Map<string, TaskSummary> };
}

/** How the last tasks/list went, for the refresh button and its error line. */
interface ListStatusSlice {
  listStatus: ListStatus;
}

/** Whether polling keeps up with what the tasks ask (the browser caps how many requests a page sends). */
interface HealthSlice {
  health?: PollingHealth;
}

/** The latest snapshot and result of each task the page holds a record of; they go when the record goes. */
interface SnapshotsSlice {
  snapshots: Map<string, TaskSnapshot>;
  results: Map<string, Normalised<TaskResultSnapshot>>;
}

type TasksData = RecordsSlice & ListSlice & OverviewSlice & ListStatusSlice & HealthSlice & SnapshotsSlice;

/** What of a batch goes into this store. */
export type TaskBatch = Partial<
  Pick<Batch, 'tasks' | 'snapshots' | 'results' | 'taskList' | 'overview' | 'listStatus' | 'polling'>
>;

export interface PageTasksState extends TasksData {
  /** The connection (or replay) everything here belongs to; 0 before the first. */
  connectionId: number;
  /** One batch, one store update. */
  apply: (batch: TaskBatch) => void;
  /** The overview closed: the engine stops sending its summaries, and the next opening starts afresh. */
  forgetOverview: () => void;
  /** Every slice starts afresh: a new connection, a replay, a seek within one. */
  reset: (connectionId?: number) => void;
}

const freshOverview = (): OverviewSlice['overview'] => ({ order: [], summaries: new Map() });

/** Each slice's state before anything came; new Maps each time, since batches update them in place. */
function freshData(): TasksData {
  return {
    ...emptyTasksState(),
    list: undefined,
    overview: freshOverview(),
    listStatus: { loading: false },
    health: undefined,
    snapshots: new Map(),
    results: new Map(),
  };
}

function overviewAfter(
  overview: OverviewSlice['overview'],
  changes: OverviewChanges,
): OverviewSlice['overview'] {
  const summaries = changes.sync ? new Map<string, TaskSummary>() : new Map(overview.summaries);
  for (const summary of changes.changed) summaries.set(summary.taskId, summary);
  // Tasks forgotten (Clear) leave the order: their summaries go too, so the axis no longer starts at them.
  if (changes.order && summaries.size > changes.order.length) {
    const kept = new Set(changes.order);
    for (const taskId of summaries.keys()) if (!kept.has(taskId)) summaries.delete(taskId);
  }
  return { order: changes.order ?? overview.order, summaries };
}

/**
 * Puts each entry in place, keeping the previous object when the new one is equal to it (a poll that changed
 * nothing re-renders nothing), as the query cache's structural sharing did.
 */
function putEach<T>(into: Map<string, T>, entries: Array<[string, T]> | undefined): void {
  for (const [taskId, value] of entries ?? []) into.set(taskId, replaceEqualDeep(into.get(taskId), value));
}

function applied(state: PageTasksState, batch: TaskBatch): Partial<PageTasksState> {
  const next: Partial<PageTasksState> = {};
  if (batch.tasks) Object.assign(next, withTaskChanges(state, batch.tasks));
  // A task out of view takes its snapshot and result with it; they come again with it.
  for (const taskId of batch.tasks?.removed ?? []) {
    state.snapshots.delete(taskId);
    state.results.delete(taskId);
  }
  putEach(state.snapshots, batch.snapshots);
  putEach(state.results, batch.results);
  if (batch.taskList) next.list = batch.taskList;
  if (batch.overview) next.overview = overviewAfter(state.overview, batch.overview);
  if (batch.listStatus) next.listStatus = batch.listStatus;
  if (batch.polling) next.health = batch.polling;
  return next;
}

export const tasksStore = createStore<PageTasksState>()((set, get) => ({
  ...freshData(),
  connectionId: 0,
  apply: (batch) => set((state) => applied(state, batch)),
  forgetOverview: () => set({ overview: freshOverview() }),
  reset: (connectionId = get().connectionId) => set({ ...freshData(), connectionId }),
}));

export function useTasks<T>(selector: (state: PageTasksState) => T): T {
  return useStore(tasksStore, selector);
}
