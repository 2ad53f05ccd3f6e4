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
  /** Ids tracked since the last batch, in order. */
  added: string[];
  /** Ids forgotten since the last batch (a person cleared history). */
  removed?: string[];
  meta?: TasksMeta;
}

/** Entries ever appended to a record: what is kept plus what the cap dropped. */
const entryTotal = (task: TrackedTask) => task.droppedEntries + task.entries.length;

/** The tracker's side: remembers what the page has, and hands out only what changed since. */
export class TaskChangeCollector {
  private readonly sent = new Map<string, TrackedTask>();
  private sentMeta: TasksMeta | undefined;

  collect(state: TasksState): TaskChanges | null {
    const changes: TaskChange[] = [];
    const added: string[] = [];
    for (const taskId of state.order) {
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
    // Forgetting is rare (Clear); only then can the page hold more tasks than the tracker.
    const removed: string[] = [];
    if (this.sent.size > state.tasks.size)
      for (const taskId of this.sent.keys())
        if (!state.tasks.has(taskId)) {
          removed.push(taskId);
          this.sent.delete(taskId);
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
    if (changes.length === 0 && added.length === 0 && removed.length === 0 && !meta) return null;
    return { changes, added, meta, ...(removed.length > 0 ? { removed } : {}) };
  }
}

/** The page's side: one store update per batch, a new object only for the tasks that changed. */
export function applyTaskChanges(store: TasksStore, batch: TaskChanges): void {
  store.setState((state) => {
    for (const { task, newEntries } of batch.changes) {
      const previous = state.tasks.get(task.taskId);
      const entries = previous ? previous.entries.concat(newEntries) : newEntries;
      // Both sides keep the newest MAX_ENTRIES, so the tracker's count of dropped entries holds here too.
      if (entries.length > MAX_ENTRIES) entries.splice(0, entries.length - MAX_ENTRIES);
      state.tasks.set(task.taskId, { ...task, entries });
    }
    let order = state.order;
    if (batch.removed) {
      const gone = new Set(batch.removed);
      for (const taskId of gone) state.tasks.delete(taskId);
      order = order.filter((taskId) => !gone.has(taskId));
    }
    if (batch.added.length > 0) {
      const known = new Set(order);
      order = [...order, ...batch.added.filter((id) => !known.has(id))];
    }
    return {
      version: state.version + 1,
      order,
      ...(batch.meta ?? {}),
    };
  });
}
