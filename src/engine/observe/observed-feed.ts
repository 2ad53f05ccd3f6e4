/**
 * What a client's session tells of its tasks, read from the messages that passed between the client and its
 * server (Taskscope's proxy): each task as it is created, every answer the client got about it (its polls, its
 * cancels, its lists), every status pushed to it, and its result when the client fetched it (inline on
 * 2026-07-28). Nothing is asked: the entries are those of a trace (engine/trace/schema.ts), so an observed
 * session builds its records as a replay does (RecordedTasks), as the messages come. Total: an odd message is
 * skipped or read as far as it goes; what is kept is capped.
 */
import {
  classifyError,
  isObject,
  isTerminal,
  normaliseResult,
  normaliseTask,
  type Era,
  type SeenMessage,
  type TaskSnapshot,
} from '../../mcp';
import type { ObservationEntry, ObservationSource, TimelineEntry } from '../../tracker/task-store';
import type { TraceTask } from '../trace/schema';

/** The tasks one observed session keeps; past it the oldest seen are let go. */
export const MAX_OBSERVED_TASKS = 5_000;
/** Client requests waiting for their answer; a client that never gets answers cannot grow this. */
const MAX_PENDING = 10_000;

export type FeedEffect =
  | { kind: 'appear'; task: TraceTask }
  | { kind: 'entry'; task: TraceTask; entry: TimelineEntry }
  /** A tasks/result went out: fetching, or held open for the receiver's questions (2025-11-25). */
  | { kind: 'result-sent'; task: TraceTask };

interface Pending {
  method: string;
  params: Record<string, unknown>;
  at: number;
}

const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const PUSHES = new Set(['notifications/tasks/status', 'notifications/tasks/updated', 'notifications/tasks']);

const idKey = (id: unknown, exchange: number | undefined): string | undefined =>
  typeof id === 'string' || typeof id === 'number'
    ? `${exchange ?? ''}:${typeof id}:${String(id)}`
    : undefined;

/** Reads one client session's messages, in the order they passed, into the entries of its tasks. */
export class ObservedFeed {
  private readonly tasks = new Map<string, TraceTask>();
  private readonly snapshots = new Map<string, TaskSnapshot>();
  /** By exchange and id: on 2026-07-28 two clients' ids may meet, and an answer rides its request's exchange. */
  private readonly pending = new Map<string, Pending>();
  private eraSeen: Era | undefined;

  constructor(private readonly eraGiven?: Era) {}

  get era(): Era {
    return this.eraGiven ?? this.eraSeen ?? '2025-11-25';
  }

  task(taskId: string): TraceTask | undefined {
    return this.tasks.get(taskId);
  }

  push(seen: SeenMessage): FeedEffect[] {
    const m = seen.message;
    if (!isObject(m)) return [];
    const method = typeof m.method === 'string' ? m.method : undefined;
    const params = isObject(m.params) ? m.params : {};
    if (seen.from === 'client') {
      if (method === undefined) return [];
      this.learnEra(method, params);
      const key = idKey(m.id, seen.exchange);
      if (key !== undefined) {
        // A request whose answer never comes (a closed client, a cut copy) must not stop newer ones being read.
        if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value as string);
        this.pending.set(key, { method, params, at: seen.wallTime });
      }
      return method === 'tasks/result' && typeof params.taskId === 'string'
        ? this.resultSent(params.taskId)
        : [];
    }
    if (method !== undefined) return PUSHES.has(method) ? this.pushed(params, seen.wallTime) : [];
    const key = idKey(m.id, seen.exchange);
    const request = key !== undefined ? this.pending.get(key) : undefined;
    if (!request || key === undefined) return [];
    this.pending.delete(key);
    return this.answered(request, m, seen.wallTime);
  }

  private learnEra(method: string, params: Record<string, unknown>): void {
    if (this.eraSeen !== undefined) return;
    if (method === 'initialize') this.eraSeen = '2025-11-25';
    else if (isObject(params._meta) && params._meta[META_PROTOCOL_VERSION] === '2026-07-28')
      this.eraSeen = '2026-07-28';
  }

  private answered(request: Pending, m: Record<string, unknown>, at: number): FeedEffect[] {
    const taskId = typeof request.params.taskId === 'string' ? request.params.taskId : undefined;
    const error = 'error' in m ? m.error : undefined;
    const result = m.result;
    switch (request.method) {
      case 'tools/call':
        return error === undefined ? this.created(request, result, at) : [];
      case 'tasks/get':
        if (taskId === undefined) return [];
        return error !== undefined
          ? this.failed(taskId, request, error, at, 'poll')
          : this.observed(taskId, result, at, 'poll', request.at);
      case 'tasks/cancel':
        if (taskId === undefined) return [];
        // 2026-07-28 acknowledges a cancel with an empty result: the next poll shows what the server did.
        return error !== undefined
          ? this.failed(taskId, request, error, at, 'cancel')
          : this.era === '2026-07-28'
            ? []
            : this.observed(taskId, result, at, 'cancel', request.at);
      case 'tasks/result':
        return taskId === undefined ? [] : this.resulted(taskId, request, result, error, at);
      case 'tasks/list':
        return error === undefined && isObject(result) && Array.isArray(result.tasks)
          ? result.tasks.flatMap((item) =>
              isObject(item) && typeof item.taskId === 'string'
                ? this.observed(item.taskId, item, at, 'list', request.at)
                : [],
            )
          : [];
      default:
        return [];
    }
  }

  /** A tools/call answered with a task: 2025-11-25's `{task}`, 2026-07-28's `resultType: "task"`. */
  private created(request: Pending, result: unknown, at: number): FeedEffect[] {
    if (!isObject(result)) return [];
    const raw = isObject(result.task) ? result.task : result.resultType === 'task' ? result : undefined;
    if (!raw || typeof raw.taskId !== 'string') return [];
    const tool = typeof request.params.name === 'string' ? request.params.name : undefined;
    const args = isObject(request.params.arguments) ? request.params.arguments : {};
    const effects = this.appear(raw.taskId, at, 'created', tool, args);
    return [...effects, ...this.observed(raw.taskId, result, at, 'create', request.at)];
  }

  private appear(
    taskId: string,
    at: number,
    origin: TraceTask['origin'],
    tool?: string,
    args?: Record<string, unknown>,
  ): FeedEffect[] {
    if (this.tasks.has(taskId)) return [];
    if (this.tasks.size >= MAX_OBSERVED_TASKS) {
      const oldest = this.tasks.keys().next().value;
      if (oldest !== undefined) {
        this.tasks.delete(oldest);
        this.snapshots.delete(oldest);
      }
    }
    const task: TraceTask = {
      taskId,
      ...(tool !== undefined ? { tool, call: { tool, args: args ?? {} } } : {}),
      origin,
      firstSeenAt: at,
      status: null,
      lifecycle: 'live',
      entries: [],
    };
    this.tasks.set(taskId, task);
    return [{ kind: 'appear', task }];
  }

  private observed(
    taskId: string,
    raw: unknown,
    at: number,
    source: ObservationSource,
    sentAt?: number,
  ): FeedEffect[] {
    const effects = this.appear(taskId, at, source === 'notification' ? 'notification' : 'list');
    const task = this.tasks.get(taskId);
    if (!task) return effects;
    const read = normaliseTask(raw, {
      expectedTaskId: taskId,
      previous: this.snapshots.get(taskId),
      era: this.era,
    });
    const snapshot = read.value;
    if (snapshot) {
      this.snapshots.set(taskId, snapshot);
      task.snapshot = snapshot;
      if (snapshot.status !== null) task.status = snapshot.status;
    }
    const entry: ObservationEntry = {
      kind: 'observation',
      at,
      source,
      ...(sentAt !== undefined && source !== 'notification'
        ? { sentAt, latencyMs: Math.max(0, at - sentAt) }
        : {}),
      status: snapshot?.status ?? null,
      ...(snapshot?.statusMessage !== undefined ? { statusMessage: snapshot.statusMessage } : {}),
      ...(snapshot?.lastUpdatedAt !== undefined ? { lastUpdatedAt: snapshot.lastUpdatedAt } : {}),
      ...(snapshot?.createdAt !== undefined ? { createdAt: snapshot.createdAt } : {}),
      ...(snapshot?.ttl !== undefined ? { ttl: snapshot.ttl } : {}),
      ...(snapshot?.pollInterval !== undefined ? { pollInterval: snapshot.pollInterval } : {}),
      warnings: read.warnings,
    };
    effects.push(this.add(task, entry));
    // 2026-07-28: the answer that sees the end carries the result or the error; the client has it then.
    if (
      this.era === '2026-07-28' &&
      isObject(raw) &&
      ('result' in raw || 'error' in raw) &&
      source !== 'create'
    )
      effects.push(...this.inlineOutcome(task, raw, at, sentAt ?? at));
    return effects;
  }

  private inlineOutcome(
    task: TraceTask,
    raw: Record<string, unknown>,
    at: number,
    sentAt: number,
  ): FeedEffect[] {
    if (!('result' in raw)) return [];
    return [this.fetched(task, raw.result, at, sentAt)];
  }

  /** The client has the result in hand: a tasks/result answer, or a 2026-07-28 answer carrying it inline. */
  private fetched(task: TraceTask, raw: unknown, at: number, sentAt: number): FeedEffect {
    const read = normaliseResult(raw, { expectedTaskId: task.taskId });
    task.result = read;
    const latencyMs = Math.max(0, at - sentAt);
    return this.add(task, {
      kind: 'result',
      at,
      sentAt,
      latencyMs,
      outcome: 'fetched',
      warnings: read.warnings,
    });
  }

  private pushed(params: Record<string, unknown>, at: number): FeedEffect[] {
    const raw = isObject(params.task) ? params.task : params;
    return typeof raw.taskId === 'string' ? this.observed(raw.taskId, raw, at, 'notification') : [];
  }

  private resultSent(taskId: string): FeedEffect[] {
    const task = this.tasks.get(taskId);
    return task ? [{ kind: 'result-sent', task }] : [];
  }

  private resulted(
    taskId: string,
    request: Pending,
    result: unknown,
    error: unknown,
    at: number,
  ): FeedEffect[] {
    const task = this.tasks.get(taskId);
    if (!task) return [];
    const latencyMs = Math.max(0, at - request.at);
    if (error === undefined) return [this.fetched(task, result, at, request.at)];
    const live = task.status !== null && !isTerminal(task.status);
    const classified = classifyError(error, { method: 'tasks/result', knownTask: true, taskLive: live });
    const outcome =
      classified.kind === 'not-ready'
        ? 'not-ready'
        : classified.kind === 'purged' || classified.kind === 'unknown-task'
          ? 'unavailable'
          : 'failed';
    return [
      this.add(task, {
        kind: 'result',
        at,
        sentAt: request.at,
        latencyMs,
        outcome,
        error: classified,
        warnings: [],
      }),
    ];
  }

  private failed(
    taskId: string,
    request: Pending,
    error: unknown,
    at: number,
    source: 'poll' | 'cancel',
  ): FeedEffect[] {
    const task = this.tasks.get(taskId);
    if (!task) return [];
    const classified = classifyError(error, { method: request.method, knownTask: task.status !== null });
    // -32602 to a poll: the task is gone (purged, expired or never known), as the tracker records it.
    if (source === 'poll' && (classified.kind === 'purged' || classified.kind === 'unknown-task')) {
      task.lifecycle = task.status !== null ? 'purged' : 'unknown';
      return [this.add(task, { kind: 'purged', at, error: classified })];
    }
    return [this.add(task, { kind: 'error', at, sentAt: request.at, source, error: classified })];
  }

  private add(task: TraceTask, entry: TimelineEntry): FeedEffect {
    if (entry.kind === 'observation' && isTerminal(entry.status) && task.lifecycle === 'live')
      task.lifecycle = 'terminal';
    return { kind: 'entry', task, entry };
  }
}
