import {
  MAX_ENTRIES,
  type Dialect,
  type TasksState,
  type TasksStore,
  type TimelineEntry,
  type TrackedTask,
} from './task-store';

/**
 * How task records cross from the tracker (in a Worker) to the page: per task, the record without its
 * timeline plus the entries added since the last batch. A record is sent whole at most once per batch
 * however often it changed, and a thousand-entry timeline is never cloned again for one new poll.
 */
export interface TaskChange {
  task: Omit<TrackedTask, 'entries'>;
  newEntries: TimelineEntry[];
}

export interface TasksMeta {
  clockOffsetMs: number;
  clockSamples: number;
  dialects: Dialect[];
  untrackedSeen: number;
}

export interface TaskChanges {
  changes: TaskChange[];
  /** Ids the page holds since this batch, in order. */
  added: string[];
  /** Ids the page no longer holds: forgotten (a person cleared history), or out of what it shows. */
  removed?: string[];
  /** Every id in the order first tracked, when the page holds every record and the order moved. */
  order?: string[];
  meta?: TasksMeta;
}

/** Entries ever appended to a record: what is kept plus what the cap dropped. */
const entryTotal = (task: TrackedTask) => task.droppedEntries + task.entries.length;

/**
 * The tracker's side: remembers what the page holds, and hands out only what changed since. Given the ids the
 * page shows (`wanted`), it hands out those alone: a record that comes into view goes whole, one that leaves
 * is let go on both sides, and the polls of the others cost the page nothing.
 */
export class TaskChangeCollector {
  private readonly sent = new Map<string, TrackedTask>();
  private sentMeta: TasksMeta | undefined;
  /** The tracker appends to its order in place: its length says as much as its identity. */
  private sentOrder: { ids: readonly string[]; length: number } | undefined;

  collect(state: TasksState, wanted?: ReadonlySet<string>): TaskChanges | null {
    const changes: TaskChange[] = [];
    const added: string[] = [];
    for (const taskId of wanted ?? state.order) {
      const task = state.tasks.get(taskId);
      const before = this.sent.get(taskId);
      if (!task || task === before) continue;
      if (!before) added.push(taskId);
      const fresh = entryTotal(task) - (before ? entryTotal(before) : 0);
      const newEntries = fresh <= 0 ? [] : task.entries.slice(Math.max(0, task.entries.length - fresh));
      const { entries: _entries, ...record } = task;
      changes.push({ task: record, newEntries });
      this.sent.set(taskId, task);
    }
    const removed: string[] = [];
    // Without a view, only forgetting (Clear) lets the page hold more than the tracker; with one, so does
    // a row scrolled out of it.
    if (wanted || this.sent.size > state.tasks.size)
      for (const taskId of this.sent.keys())
        if (!state.tasks.has(taskId) || (wanted && !wanted.has(taskId))) {
          removed.push(taskId);
          this.sent.delete(taskId);
        }
    let order: string[] | undefined;
    if (wanted) this.sentOrder = undefined;
    else if (this.sentOrder?.ids !== state.order || this.sentOrder.length !== state.order.length) {
      order = state.order.slice();
      this.sentOrder = { ids: state.order, length: state.order.length };
    }
    const meta =
      this.sentMeta?.clockOffsetMs !== state.clockOffsetMs ||
      this.sentMeta.clockSamples !== state.clockSamples ||
      this.sentMeta.dialects !== state.dialects ||
      this.sentMeta.untrackedSeen !== state.untrackedSeen
        ? {
            clockOffsetMs: state.clockOffsetMs,
            clockSamples: state.clockSamples,
            dialects: state.dialects,
            untrackedSeen: state.untrackedSeen,
          }
        : undefined;
    if (meta) this.sentMeta = meta;
    if (changes.length === 0 && added.length === 0 && removed.length === 0 && !meta && !order) return null;
    return {
      changes,
      added,
      meta,
      ...(removed.length > 0 ? { removed } : {}),
      ...(order ? { order } : {}),
    };
  }

  /** Whether the page holds this task's record (so its snapshot and result may go too). */
  holds(taskId: string): boolean {
    return this.sent.has(taskId);
  }
}

/** The page's side: one store update per batch, a new object only for the tasks that changed. */
export function applyTaskChanges(store: TasksStore, batch: TaskChanges): void {
  store.setState((state) => withTaskChanges(state, batch));
}

/**
 * The records' next fields after a batch: `state.tasks` is updated in place (a new object only for the tasks
 * that changed), the rest comes back to be set, so a store with more than the records can apply it too.
 */
export function withTaskChanges(
  state: TasksState,
  batch: TaskChanges,
): Pick<TasksState, 'version' | 'order'> & Partial<TasksMeta> {
  for (const { task, newEntries } of batch.changes) {
    const previous = state.tasks.get(task.taskId);
    const entries = previous ? previous.entries.concat(newEntries) : newEntries;
    // Both sides keep the newest MAX_ENTRIES, so the tracker's count of dropped entries holds here too.
    if (entries.length > MAX_ENTRIES) entries.splice(0, entries.length - MAX_ENTRIES);
    state.tasks.set(task.taskId, { ...task, entries });
  }
  const gone = batch.removed ? new Set(batch.removed) : undefined;
  if (gone) for (const taskId of gone) state.tasks.delete(taskId);
  let order = batch.order ?? state.order;
  if (gone && !batch.order) order = order.filter((taskId) => !gone.has(taskId));
  if (batch.added.length > 0 && !batch.order) {
    const known = new Set(order);
    order = [...order, ...batch.added.filter((id) => !known.has(id))];
  }
  return {
    version: state.version + 1,
    order,
    ...(batch.meta ?? {}),
  };
}
