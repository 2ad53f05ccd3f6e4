import {
  isTerminal,
  type TaskActivity,
  type TaskResultSnapshot,
  type TaskShape,
  type TaskStatus,
} from '../mcp';
import { formatClock } from '../format/time';
import {
  appendEntry,
  type ErrorEntry,
  type ObservationEntry,
  type PurgedEntry,
  type ResultEntry,
  type ResultState,
  type Dialect,
  type TrackedTask,
} from './task-store';

/**
 * What one entry does to a task's record, as pure functions: the record and the entry in, the change to apply
 * out (for `updateTask`). The live tracker and a replay apply the same ones, so a replayed record follows its
 * entries as the tracker made it; what each passes in is what it knows (the tracker its merge and its
 * backoff, a replay what the recording kept).
 */

/** A session id short enough for a sentence. */
export const shortId = (id: string | undefined) =>
  id === undefined ? '(none)' : id.length > 12 ? `${id.slice(0, 8)}…` : id;

/** A status (the merged snapshot's) that ends a live task. */
export const endsTask = (task: TrackedTask, status: TaskStatus | null | undefined): boolean =>
  task.lifecycle === 'live' && isTerminal(status);

/**
 * An answer about the task (poll, push, listing, cancel, probe, the check). `status` is the merged snapshot's
 * (none when nothing usable was ever said); `answered`: a request of ours was answered, so whatever backoff
 * the errors before it built up is over.
 */
export function observationChange(
  task: TrackedTask,
  entry: ObservationEntry,
  status: TaskStatus | null | undefined,
  answered: boolean,
): Partial<TrackedTask> {
  return {
    ...appendEntry(task, entry),
    status: status ?? task.status,
    lifecycle: endsTask(task, status) ? 'terminal' : task.lifecycle,
    notificationCount: task.notificationCount + (entry.source === 'notification' ? 1 : 0),
    ...(answered ? { backoffMs: 0, lastError: undefined } : {}),
    warningCount: task.warningCount + entry.warnings.length,
  };
}

/** A poll (or probe) went out: counted when sent, and counted against the tracker once the task has ended. */
export function pollSentChange(task: TrackedTask, source: 'poll' | 'probe'): Partial<TrackedTask> {
  return {
    pollCount: task.pollCount + (source === 'poll' ? 1 : 0),
    pollsAfterTerminal: task.pollsAfterTerminal + (source === 'poll' && task.lifecycle !== 'live' ? 1 : 0),
  };
}

/**
 * A request about the task failed and will be asked again after `backoffMs` (a receiver without tasks/get:
 * never, the task is unknown from then on).
 */
export function errorChange(task: TrackedTask, entry: ErrorEntry, backoffMs: number): Partial<TrackedTask> {
  return {
    ...appendEntry(task, entry),
    backoffMs,
    lastError: entry.error,
    rateLimitedCount: task.rateLimitedCount + (entry.error.kind === 'rate-limited' ? 1 : 0),
    ...(entry.error.kind === 'unsupported' ? { lifecycle: 'unknown' as const } : {}),
  };
}

/** The receiver no longer has the task (`known`: it had it once, so purged) or never had it (unknown). */
export function purgedChange(task: TrackedTask, entry: PurgedEntry, known: boolean): Partial<TrackedTask> {
  return {
    ...appendEntry(task, entry),
    lifecycle: known ? 'purged' : 'unknown',
    lastError: entry.error,
    nextPollInMs: null,
  };
}

/** One tasks/result answered or failed, leaving the task's result in `result`. */
export function resultChange(
  task: TrackedTask,
  entry: ResultEntry,
  result: ResultState,
): Partial<TrackedTask> {
  return {
    ...appendEntry(task, entry),
    result,
    warningCount: task.warningCount + entry.warnings.length,
  };
}

/** Progress reports closer together than this update the bar but add no timeline entry. */
export const PROGRESS_ENTRY_GAP_MS = 100;

/**
 * Progress on the task's token, or a log line naming it. The bar follows every report; the timeline keeps one
 * progress entry per PROGRESS_ENTRY_GAP_MS at most (or when the message changes), so a receiver reporting a
 * thousand times a second cannot push the task's observations out of its history.
 */
export function activityChange(task: TrackedTask, activity: TaskActivity, at: number): Partial<TrackedTask> {
  if (activity.kind === 'log') return appendEntry(task, { ...activity, at });
  const { kind: _kind, ...progress } = activity;
  const last = task.progress;
  const entry =
    !last || at - last.at >= PROGRESS_ENTRY_GAP_MS || last.message !== progress.message
      ? appendEntry(task, { kind: 'progress', at, ...progress })
      : {};
  return { ...entry, progress: { ...progress, at } };
}

/** The session the task lives in ended at `at` (once: a later end says nothing new). */
export function sessionEndedChange(task: TrackedTask, at: number): Partial<TrackedTask> {
  if (task.sessionEndedAt !== undefined) return {};
  return {
    ...appendEntry(task, {
      kind: 'session',
      at,
      phase: 'ended',
      detail: `Session ${shortId(task.sessionId)} ended at ${formatClock(at)}.`,
    }),
    sessionEndedAt: at,
    nextPollInMs: null,
  };
}

/**
 * The receiver answered about the task in session `current`: one carried over from another session (or
 * given up as "session ended") is this session's from now on, and live again.
 */
export function knownAgainChange(
  task: TrackedTask,
  current: string | undefined,
  at: number,
): Partial<TrackedTask> {
  return {
    ...appendEntry(task, {
      kind: 'session',
      at,
      phase: 'known-again',
      detail: `The receiver knows this task in session ${shortId(current)}: followed there.`,
    }),
    sessionId: current,
    otherSession: undefined,
    sessionEndedAt: undefined,
    lifecycle: task.lifecycle === 'session-ended' ? 'live' : task.lifecycle,
  };
}

/** The dialect a tasks/get answer's shape says (the create answer is {task} in both 2025 dialects). */
export const taskDialect = (shape: TaskShape): Dialect =>
  shape === 'v2' ? 'v2' : shape === 'wrapped' ? 'user-docs' : 'spec';

/** The dialect a tasks/result answer's shape says. */
export const resultDialect = (shape: TaskResultSnapshot['shape']): Dialect =>
  shape === 'envelope' ? 'user-docs' : shape === 'inline' ? 'v2' : 'spec';
