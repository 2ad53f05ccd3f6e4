import type { Normalised, TaskActivity, TaskResultSnapshot, TaskSnapshot, Warning } from '../../mcp';
import type { ObservationEntry, PurgedEntry } from '../../tracker/task-store';
import type { TaskApiPort } from '../../tracker/tracker-types';
import type { TraceTask } from './trace-types';

/** Warnings the tracker adds by itself on every answer: carried over from the recording they would be doubled. */
const TRACKER_WARNINGS = new Set(['bad-timestamp']);

/** A JSON-RPC error as the SDK throws one, so classifyError reads it as the receiver's own answer. */
export class RecordedError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RecordedError';
  }
}

type StatusListener = Parameters<TaskApiPort['onTaskStatus']>[0];

/** What a task said at one moment of the recording: an observation with a status, or its purge. */
type Answer = { at: number; entry: ObservationEntry } | { at: number; purged: PurgedEntry };

const parseTime = (text: string | undefined) => {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
};

/** The task as the receiver described it in this observation, with what only its latest snapshot kept (createdAt). */
export function snapshotFrom(task: TraceTask, entry: ObservationEntry): TaskSnapshot {
  const createdAt = task.snapshot?.createdAt;
  return {
    taskId: task.taskId,
    status: entry.status,
    statusMessage: entry.statusMessage,
    createdAt,
    createdAtMs: task.snapshot?.createdAtMs ?? parseTime(createdAt),
    lastUpdatedAt: entry.lastUpdatedAt,
    lastUpdatedAtMs: parseTime(entry.lastUpdatedAt),
    ttl: entry.ttl,
    pollInterval: entry.pollInterval,
    shape: task.snapshot?.shape ?? 'flat',
  };
}

export function normalisedFrom(task: TraceTask, entry: ObservationEntry): Normalised<TaskSnapshot> {
  const warnings: Warning[] = entry.warnings.filter((w) => !TRACKER_WARNINGS.has(w.code));
  return { value: snapshotFrom(task, entry), warnings };
}

/**
 * The receiver as the trace recorded it: every question is answered with what the task said last at the
 * replay's current time. Nothing here touches the network. tasks/get gives the latest observation (or the
 * -32602 of a recorded purge), tasks/result the task's result as kept whole in the trace, tasks/list the
 * tasks first seen by now. Pushes and progress are delivered by the replay at their recorded times.
 */
export class RecordedPort implements TaskApiPort {
  private readonly answers = new Map<string, Answer[]>();
  private readonly tasks = new Map<string, TraceTask>();
  private readonly cancelsAnswered = new Map<string, number>();
  private readonly statusListeners = new Set<StatusListener>();
  private readonly activityListeners = new Set<(taskId: string, activity: TaskActivity) => void>();

  constructor(
    tasks: readonly TraceTask[],
    private readonly now: () => number,
    /** Whether the replay's tracker follows a task already (tasks/list names only those, and listed ones). */
    private readonly isTracked: (taskId: string) => boolean,
  ) {
    for (const task of tasks) {
      this.tasks.set(task.taskId, task);
      const answers: Answer[] = [];
      for (const entry of task.entries) {
        if (entry.kind === 'observation' && entry.status !== null) answers.push({ at: entry.at, entry });
        else if (entry.kind === 'purged') answers.push({ at: entry.at, purged: entry });
      }
      answers.sort((a, b) => a.at - b.at);
      // A purge is known only when a probe found it, but it happened some time after the last answer that
      // still knew the task: from then on the replay says purged, so its own probes (timed a little
      // differently from the recording's) find it too, never before anything the recording saw alive.
      const purgedAt = answers.findIndex((a) => 'purged' in a);
      if (purgedAt > 0) {
        const purge = answers[purgedAt] as Answer;
        answers[purgedAt] = { ...purge, at: Math.min(purge.at, (answers[purgedAt - 1] as Answer).at + 1) };
      }
      this.answers.set(task.taskId, answers);
    }
  }

  /** What the task said last at time `at`, undefined before its first observation. */
  answerAt(taskId: string, at: number): Answer | undefined {
    const answers = this.answers.get(taskId);
    if (!answers) return undefined;
    let lo = 0;
    let hi = answers.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((answers[mid] as Answer).at <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? undefined : answers[lo - 1];
  }

  async getTask(taskId: string): Promise<Normalised<TaskSnapshot | null>> {
    const task = this.tasks.get(taskId);
    const answer = this.answerAt(taskId, this.now()) ?? this.answers.get(taskId)?.[0];
    if (!task || !answer) throw new RecordedError(-32602, `Task ${taskId} is not in this recording`);
    if ('purged' in answer)
      throw new RecordedError(-32602, answer.purged.error.detail ?? answer.purged.error.message);
    return normalisedFrom(task, answer.entry);
  }

  async getTaskResult(taskId: string): Promise<Normalised<TaskResultSnapshot>> {
    const result = this.tasks.get(taskId)?.result;
    if (!result) throw new RecordedError(-32603, 'The recording has no result for this task');
    return result;
  }

  /**
   * Answers the cancels the recording made, in their order, each with the status its answer carried. By order,
   * not by time: a replay's timers fire a little late, and the cancel is still the one that was recorded.
   */
  async cancelTask(taskId: string): Promise<Normalised<TaskSnapshot | null>> {
    const task = this.tasks.get(taskId);
    const answered = this.cancelsAnswered.get(taskId) ?? 0;
    const entry = task?.entries.filter(
      (e): e is ObservationEntry => e.kind === 'observation' && e.source === 'cancel',
    )[answered];
    if (!task || !entry)
      throw new RecordedError(-32600, 'A replay sends nothing: only recorded cancels happen');
    this.cancelsAnswered.set(taskId, answered + 1);
    return normalisedFrom(task, entry);
  }

  async listTasks(): Promise<{ tasks: TaskSnapshot[]; warnings: Warning[] }> {
    const now = this.now();
    const tasks: TaskSnapshot[] = [];
    for (const task of this.tasks.values()) {
      if (task.firstSeenAt > now) continue;
      if (task.origin !== 'list' && !this.isTracked(task.taskId)) continue;
      const answer = this.answerAt(task.taskId, now);
      if (answer && 'entry' in answer) tasks.push(snapshotFrom(task, answer.entry));
    }
    return { tasks, warnings: [] };
  }

  onTaskStatus(listener: StatusListener): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  onTaskActivity(listener: (taskId: string, activity: TaskActivity) => void): () => void {
    this.activityListeners.add(listener);
    return () => this.activityListeners.delete(listener);
  }

  /** A recorded push, delivered now. */
  push(task: TraceTask, entry: ObservationEntry): void {
    const update = normalisedFrom(task, entry);
    const notification = { method: 'notifications/tasks/status', params: { taskId: task.taskId } };
    for (const listener of this.statusListeners) listener(update, notification);
  }

  /** Recorded progress or a log line, delivered now. */
  activity(taskId: string, activity: TaskActivity): void {
    for (const listener of this.activityListeners) listener(taskId, activity);
  }
}
