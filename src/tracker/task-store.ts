import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ClassifiedError, TaskStatus, Warning } from '../mcp';

/**
 * What brought an observation: the create answer, a poll, a push, tasks/list, a cancel answer, a purge probe,
 * or a tasks/get of the report card's active check.
 */
export type ObservationSource = 'create' | 'poll' | 'notification' | 'list' | 'cancel' | 'probe' | 'check';

export interface ObservationEntry {
  kind: 'observation';
  /** Local wall-clock ms at receipt. */
  at: number;
  source: ObservationSource;
  /** Local wall-clock ms the request was sent (polls, probes, cancel). */
  sentAt?: number;
  latencyMs?: number;
  /** The interval that was in force when this poll was scheduled. */
  intervalMs?: number;
  /** null when the answer's status was unusable (see warnings); the task kept its previous one. */
  status: TaskStatus | null;
  statusMessage?: string;
  lastUpdatedAt?: string;
  /** As this answer gave it: the report card checks that it never moves. */
  createdAt?: string;
  ttl?: number | null;
  pollInterval?: number;
  warnings: Warning[];
}

export interface ErrorEntry {
  kind: 'error';
  at: number;
  sentAt: number;
  source: 'poll' | 'probe' | 'cancel';
  error: ClassifiedError;
  /** What the tracker does about it: wait this long before asking again. */
  retryInMs?: number;
}

export interface ResultEntry {
  kind: 'result';
  at: number;
  sentAt: number;
  latencyMs: number;
  outcome: 'fetched' | 'not-ready' | 'failed' | 'unavailable';
  error?: ClassifiedError;
  warnings: Warning[];
}

export interface PurgedEntry {
  kind: 'purged';
  at: number;
  error: ClassifiedError;
}

/** The receiver asked a person something for this task (elicitation, sampling), and what became of it. */
export interface InputEntry {
  kind: 'input';
  at: number;
  method: string;
  phase: 'asked' | 'answered' | 'cancelled';
  /** accept / decline / cancel, or the sampling reply's model. */
  detail?: string;
}

/** notifications/progress for the task's progressToken (2025-11-25: valid for the task's whole life). */
export interface ProgressEntry {
  kind: 'progress';
  at: number;
  progress: number;
  total?: number;
  message?: string;
}

/** notifications/message naming the task in its related-task _meta. */
export interface LogEntry {
  kind: 'log';
  at: number;
  level: string;
  logger?: string;
  /** The message's data as text, cut to a readable size. */
  text: string;
}

/** The session the task lives in ended, or the receiver knew the task again in a new one. */
export interface SessionEntry {
  kind: 'session';
  at: number;
  phase: 'ended' | 'known-again' | 'restored';
  detail: string;
}

export type TimelineEntry =
  | ObservationEntry
  | ErrorEntry
  | ResultEntry
  | PurgedEntry
  | InputEntry
  | SessionEntry
  | ProgressEntry
  | LogEntry;

/**
 * live: still polled. terminal: ended, kept. purged: the receiver no longer has it (what we saw is kept).
 * unknown: the receiver never knew it (a pasted id that was wrong). session-ended: it was live in a session
 * that is over, and the receiver does not know it in this one; not the receiver's verdict on the task itself.
 */
export type Lifecycle = 'live' | 'terminal' | 'purged' | 'unknown' | 'session-ended';

export type ResultState =
  | { state: 'none' }
  /** input_required: tasks/result is open so the receiver can send its questions on it (2025-11-25). */
  | { state: 'open-for-input' }
  /** input_required, but the browser's connections are taken by other tasks waiting for input. */
  | { state: 'queued-for-input'; position: number }
  | { state: 'fetching'; attempt: number }
  | { state: 'fetched'; at: number }
  | { state: 'not-ready' }
  | { state: 'retrying'; attempt: number; error: ClassifiedError }
  | { state: 'unavailable'; error: ClassifiedError }
  /** The person stopped waiting for an open tasks/result. */
  | { state: 'stopped' };

/** The call that created a task, as sent: what "Run again" fills the form with. */
export interface TaskCall {
  tool: string;
  args: Record<string, unknown>;
  /** The ttl asked for (2025-11-25); the receiver may have changed it. */
  ttl?: number;
}

export interface TrackedTask {
  taskId: string;
  connectionId: number;
  tool?: string;
  /** Set for tasks created here: the tool, arguments and requested ttl. */
  call?: TaskCall;
  /**
   * The latest notifications/progress for the task, for the bar on its row and detail. `restored`: kept
   * from history, with no report since this page connected (the token was an earlier page's).
   */
  progress?: { progress: number; total?: number; message?: string; at: number; restored?: boolean };
  origin: 'created' | 'list' | 'manual' | 'notification';
  /** Who created it here when not the person: `check`, the report card's active check. */
  startedBy?: 'check';
  firstSeenAt: number;
  /** The tracker's verdict, kept when a receiver later says something illegal or unusable. */
  status: TaskStatus | null;
  lifecycle: Lifecycle;
  /** Newest last; the oldest are dropped beyond MAX_ENTRIES (counted in droppedEntries). */
  entries: TimelineEntry[];
  droppedEntries: number;
  pollCount: number;
  notificationCount: number;
  warningCount: number;
  rateLimitedCount: number;
  /** Polls sent after the tracker had seen a terminal status: a tracker bug if ever above 0. */
  pollsAfterTerminal: number;
  /** Known but not polled: past MAX_POLLED_TASKS, until a person opens or follows it. */
  dormant?: boolean;
  /** The receiver's session (Mcp-Session-Id) the task was last known in; none for sessionless receivers. */
  sessionId?: string;
  /** When that session ended (lost, disconnected, or not resumed after a reload). */
  sessionEndedAt?: number;
  /** Restored from history but from a session not this tab's (another tab, an old one): shown, not polled. */
  otherSession?: boolean;
  /** The delay before the next poll, as last computed; null when nothing is scheduled. */
  nextPollInMs: number | null;
  backoffMs: number;
  lastError?: ClassifiedError;
  result: ResultState;
}

export const MAX_ENTRIES = 2000;

/** A record for a task just tracked: nothing observed yet. */
export function newTrackedTask(
  fields: Pick<TrackedTask, 'taskId' | 'connectionId' | 'origin' | 'firstSeenAt'> & Partial<TrackedTask>,
): TrackedTask {
  return {
    status: null,
    lifecycle: 'live',
    entries: [],
    droppedEntries: 0,
    pollCount: 0,
    notificationCount: 0,
    warningCount: 0,
    rateLimitedCount: 0,
    pollsAfterTerminal: 0,
    nextPollInMs: null,
    backoffMs: 0,
    result: { state: 'none' },
    ...fields,
  };
}

export interface TasksState {
  /**
   * Updated in place, with `version` bumped on every change: copying a thousand-entry record for each of a
   * thousand polls a second was most of the tracker's CPU (npm run bench). Each TrackedTask is still replaced,
   * never mutated, so a selector for one task sees a new object exactly when that task changed.
   */
  tasks: Map<string, TrackedTask>;
  version: number;
  /** Task ids in the order they were first tracked. */
  order: string[];
  /** Estimated server − local clock offset per connection, from timestamps vs receipt times. */
  clockOffsetMs: number;
  clockSamples: number;
  /** Which shapes this receiver's answers came in, so the page can say which dialect it speaks. */
  dialects: Dialect[];
  /** Task ids pushes named beyond the automatic tracking limit, not followed (yet). */
  untrackedSeen: number;
}

/**
 * spec: 2025-11-25 (flat tasks/get, plain tasks/result). user-docs: the user documents' `{task}` tasks/get and
 * `{taskId, status, result}` tasks/result. v2: the 2026-07-28 task shape.
 */
export type Dialect = 'spec' | 'user-docs' | 'v2';

export function noteDialect(store: TasksStore, dialect: Dialect): void {
  if (!store.getState().dialects.includes(dialect))
    store.setState((s) => ({ dialects: [...s.dialects, dialect] }));
}

export type TasksStore = StoreApi<TasksState>;

/** Records before the first task: a new Map each time, since the store updates its Map in place. */
export function emptyTasksState(): TasksState {
  return {
    tasks: new Map(),
    version: 0,
    order: [],
    clockOffsetMs: 0,
    clockSamples: 0,
    dialects: [],
    untrackedSeen: 0,
  };
}

export function createTasksStore(): TasksStore {
  return createStore<TasksState>()(emptyTasksState);
}

/** Applies `change` to one task's record, immutably so selectors see a new object only for that task. */
export function updateTask(
  store: TasksStore,
  taskId: string,
  change: (task: TrackedTask) => Partial<TrackedTask>,
): void {
  store.setState((state) => {
    const task = state.tasks.get(taskId);
    if (!task) return state;
    state.tasks.set(taskId, { ...task, ...change(task) });
    return { version: state.version + 1 };
  });
}

export function appendEntry(
  task: TrackedTask,
  entry: TimelineEntry,
): Pick<TrackedTask, 'entries' | 'droppedEntries'> {
  const overflow = task.entries.length >= MAX_ENTRIES ? task.entries.length - MAX_ENTRIES + 1 : 0;
  const entries = overflow > 0 ? task.entries.slice(overflow) : task.entries.slice();
  entries.push(entry);
  return { entries, droppedEntries: task.droppedEntries + overflow };
}
