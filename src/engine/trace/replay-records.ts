import type { QueryClient } from '@tanstack/query-core';
import { isTerminal, type ClassifiedError, type TaskSnapshot } from '../../mcp';
import { ClockCheck } from '../../tracker/clock-offset';
import { mergeSnapshot } from '../../tracker/merge';
import { queryKeys } from '../../tracker/queries';
import {
  errorChange,
  observationChange,
  pollSentChange,
  purgedChange,
  resultChange,
  resultDialect,
  taskDialect,
} from '../../tracker/record-changes';
import {
  appendEntry,
  createTasksStore,
  newTrackedTask,
  noteDialect,
  updateTask,
  type ObservationEntry,
  type ResultEntry,
  type ResultState,
  type TasksStore,
  type TimelineEntry,
  type TrackedTask,
} from '../../tracker/task-store';
import type { TraceTask } from './schema';

const parseTime = (text: string | undefined) => {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
};

/** The task as the receiver described it in this observation, with what only its latest snapshot kept (createdAt). */
export function snapshotFrom(task: TraceTask, entry: ObservationEntry): TaskSnapshot {
  const createdAt = entry.createdAt ?? task.snapshot?.createdAt;
  return {
    taskId: task.taskId,
    status: entry.status,
    statusMessage: entry.statusMessage,
    createdAt,
    createdAtMs: parseTime(createdAt) ?? task.snapshot?.createdAtMs,
    lastUpdatedAt: entry.lastUpdatedAt,
    lastUpdatedAtMs: parseTime(entry.lastUpdatedAt),
    ttl: entry.ttl,
    pollInterval: entry.pollInterval,
    shape: task.snapshot?.shape ?? 'flat',
  };
}

const NO_RESULT: ClassifiedError = {
  kind: 'other',
  message: 'The recording holds that the result was fetched, but not the result itself.',
};

/**
 * The task records of a replay, written from the trace: every entry of a task's timeline is put back as it was
 * recorded (its time, sentAt, latency, source, warnings), at the moment the replay's clock reaches it. Nothing
 * here decides when to ask anything — the recording did — so result latency, poll gaps, pushes and purges keep
 * their recorded spacing at any speed, and their order at "instant". The record's own fields (status,
 * lifecycle, counts, result state, progress) follow from the entries as the live tracker set them, and once
 * a task's last entry is in, its status and lifecycle are the recorded ones.
 */
export class RecordedTasks {
  readonly store: TasksStore = createTasksStore();
  private readonly snapshots = new Map<string, TaskSnapshot>();
  private readonly clockCheck = new ClockCheck(this.store);

  constructor(
    private readonly queryClient: QueryClient,
    private readonly connectionId: number,
  ) {}

  snapshot(taskId: string): TaskSnapshot | undefined {
    return this.snapshots.get(taskId);
  }

  /** The task is first seen: a record with nothing observed yet, as the tracker starts one. */
  appear(task: TraceTask): void {
    if (this.store.getState().tasks.has(task.taskId)) return;
    this.store.setState((state) => {
      state.tasks.set(
        task.taskId,
        newTrackedTask({
          taskId: task.taskId,
          connectionId: this.connectionId,
          tool: task.tool,
          call: task.call,
          origin: task.origin,
          ...(task.startedBy ? { startedBy: task.startedBy } : {}),
          firstSeenAt: task.firstSeenAt,
          sessionId: task.sessionId,
          droppedEntries: task.droppedEntries ?? 0,
          // With no entry to bring it, the recorded verdict is all there is.
          ...(task.entries.length === 0 ? { status: task.status, lifecycle: task.lifecycle } : {}),
        }),
      );
      state.order.push(task.taskId);
      return { version: state.version + 1 };
    });
  }

  /**
   * A tasks/result went out (its result entry's sentAt): fetching, or held open for the receiver's questions
   * when the task had not ended yet (2025-11-25).
   */
  resultSent(task: TraceTask): void {
    updateTask(this.store, task.taskId, (t) =>
      t.result.state === 'fetched'
        ? {}
        : { result: isTerminal(t.status) ? { state: 'fetching', attempt: 1 } : { state: 'open-for-input' } },
    );
  }

  /** One recorded entry, in the order the task's timeline holds it; `last` when nothing of the task follows. */
  apply(task: TraceTask, entry: TimelineEntry, nextPollAt: number | undefined, last: boolean): void {
    const merged = entry.kind === 'observation' ? this.observed(task, entry) : undefined;
    if (entry.kind === 'result') this.resulted(task, entry);
    updateTask(this.store, task.taskId, (t) => {
      const change = recordedChange(t, entry, merged);
      // A trace may hold a fetch without its body (an export from before results were kept whole).
      if (entry.kind === 'result' && entry.outcome === 'fetched' && !task.result)
        change.result = { state: 'unavailable', error: NO_RESULT };
      const lifecycle = change.lifecycle ?? t.lifecycle;
      change.nextPollInMs =
        lifecycle === 'live' && nextPollAt !== undefined ? Math.max(0, nextPollAt - entry.at) : null;
      if (last) {
        change.status = task.status;
        change.lifecycle = task.lifecycle;
        if (task.lifecycle !== 'live') change.nextPollInMs = null;
      }
      return change;
    });
  }

  /** The observation merged into the task's snapshot, as the tracker merges an answer (TaskTracker.observe). */
  private observed(task: TraceTask, entry: ObservationEntry): TaskSnapshot | undefined {
    if (entry.status === null) return this.snapshots.get(task.taskId);
    const value = snapshotFrom(task, entry);
    const previous = this.snapshots.get(task.taskId);
    const merged = mergeSnapshot(previous, value);
    this.snapshots.set(task.taskId, merged);
    if (entry.source === 'poll' || value.shape === 'v2') noteDialect(this.store, taskDialect(value.shape));
    // The receiver's clock as the recording saw it; the recorded warnings are the entry's own already.
    this.clockCheck.check(task.taskId, value, previous, entry.at, entry.source, []);
    this.queryClient.setQueryData(queryKeys.task(this.connectionId, task.taskId), merged);
    return merged;
  }

  private resulted(task: TraceTask, entry: ResultEntry): void {
    if (entry.outcome !== 'fetched' || !task.result) return;
    noteDialect(this.store, resultDialect(task.result.value.shape));
    this.queryClient.setQueryData(queryKeys.taskResult(this.connectionId, task.taskId), task.result);
  }
}

/**
 * What one recorded entry changes of a task's record: the change the tracker applied when it made the entry
 * (record-changes.ts), given what the recording kept in place of what the tracker knew then. A recorded poll
 * counts when its entry comes, as if sent then.
 */
function recordedChange(
  t: TrackedTask,
  entry: TimelineEntry,
  merged: TaskSnapshot | undefined,
): Partial<TrackedTask> {
  switch (entry.kind) {
    case 'observation':
      return {
        ...(entry.source === 'poll' ? pollSentChange(t, entry.source) : {}),
        ...observationChange(t, entry, merged?.status, answered(entry)),
      };
    case 'error':
      return {
        ...(entry.source === 'poll' ? pollSentChange(t, entry.source) : {}),
        ...errorChange(t, entry, entry.retryInMs ?? t.backoffMs),
      };
    case 'purged':
      // The tracker judged "purged" when it had seen the task, "unknown" when it never had.
      return purgedChange(t, entry, t.status !== null);
    case 'result':
      return resultChange(t, entry, resultStateAfter(entry));
    case 'session':
      // The tracker's session rules compare session ids a replay has none of: the entry's phase says the outcome.
      return {
        ...appendEntry(t, entry),
        ...(entry.phase === 'ended'
          ? { lifecycle: 'session-ended' as const, sessionEndedAt: entry.at }
          : t.lifecycle === 'session-ended'
            ? {
                lifecycle: isTerminal(t.status) ? ('terminal' as const) : ('live' as const),
                sessionEndedAt: undefined,
              }
            : {}),
      };
    case 'progress': {
      const { kind: _kind, ...progress } = entry;
      return { ...appendEntry(t, entry), progress };
    }
    default:
      return appendEntry(t, entry);
  }
}

/** The recording does not say which answers were to requests of ours: polls, probes and cancels were. */
const answered = (entry: ObservationEntry) =>
  entry.source === 'poll' || entry.source === 'probe' || entry.source === 'cancel';

/** The result state a recorded tasks/result left (the recording keeps the outcome, not the state). */
function resultStateAfter(entry: ResultEntry): ResultState {
  if (entry.outcome === 'fetched') return { state: 'fetched', at: entry.at };
  if (entry.outcome === 'not-ready') return { state: 'not-ready' };
  if (entry.outcome === 'unavailable' && entry.error) return { state: 'unavailable', error: entry.error };
  return entry.error ? { state: 'retrying', attempt: 1, error: entry.error } : { state: 'none' };
}
