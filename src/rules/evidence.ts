/**
 * What the report card's rules are judged from, and the small shared vocabulary of judging: each rule
 * collects how many observations it looked at and the offences among them; the verdict follows from the
 * rule's strength (evaluate.ts).
 */
import {
  type AuthView,
  isObject,
  isOmittedBody,
  isTerminal,
  type Era,
  type Normalised,
  type ServerTaskSupport,
  type TaskResultSnapshot,
  type TaskSnapshot,
  type ToolInfo,
  type TrafficEvent,
} from '../mcp';
import type { ObservationEntry, TrackedTask } from '../tracker/task-store';
import type { Offence, RuleId } from './report-types';

/** Everything the passive card is judged from; all of it is what the tracker and the traffic tap already keep. */
export interface ReportInput {
  receiver: { url: string; era?: Era; server?: { name?: string; version?: string } };
  support: ServerTaskSupport;
  tools: readonly ToolInfo[];
  /** The tracked tasks with their timelines (the engine's or the page's tasks store). */
  tasks: Iterable<TrackedTask>;
  /** The merged snapshot per task, when at hand: fills in createdAt and ttl for timelines cut short. */
  snapshots?: ReadonlyMap<string, TaskSnapshot>;
  /** taskId → the result as fetched (tasks/result, or inline on 2026-07-28). */
  results: ReadonlyMap<string, Normalised<TaskResultSnapshot>>;
  /** The traffic log, oldest first: whole JSON-RPC messages up to 64 KB (bigger ones carry no body). */
  traffic: readonly TrafficEvent[];
  /** The receiver's sign-in, when it asked for one: its steps are the authorization rules' evidence. */
  auth?: AuthView;
  /** Estimated receiver − local clock offset (tasks store's clockOffsetMs). */
  clockOffsetMs: number;
  /** How many fresh timestamps the offset was learnt from (tasks store's clockSamples); 0: never learnt. */
  clockSamples: number;
  now: number;
}

/** An offence with when it happened (wall-clock ms), so the first one can be picked across tasks and traffic. */
export type Found = Offence & { when: number };

export interface Judgement {
  id: RuleId;
  observations: number;
  offences: Found[];
  /** What was seen when nothing broke the rule. */
  passReason: string;
  /** What broke it: gets the count of offences. */
  brokenReason: (count: number) => string;
  /** Set when the rule was judged on nothing and that needs saying (e.g. "no failed task seen"). */
  unobservedReason?: string;
}

export interface TaskView {
  task: TrackedTask;
  /** Observations in arrival order. */
  obs: ObservationEntry[];
  createdAtMs?: number;
  /** The latest ttl the receiver gave: a number, null (unlimited), or undefined (never given). */
  ttl?: number | null;
}

export interface Context {
  input: ReportInput;
  era: Era;
  tasks: TaskView[];
  /** Traffic by seq, to pair answers with their requests. */
  bySeq: Map<number, TrafficEvent>;
}

export function parseTime(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

export function buildContext(input: ReportInput): Context {
  const tasks: TaskView[] = [];
  for (const task of input.tasks) {
    const obs = task.entries.filter((e): e is ObservationEntry => e.kind === 'observation');
    const snapshot = input.snapshots?.get(task.taskId);
    let createdAtMs = snapshot?.createdAtMs;
    let ttl: number | null | undefined = snapshot?.ttl;
    for (const o of obs) {
      createdAtMs ??= parseTime(o.createdAt);
      if (o.ttl !== undefined) ttl = o.ttl;
    }
    tasks.push({ task, obs, createdAtMs, ttl });
  }
  const bySeq = new Map<number, TrafficEvent>();
  for (const event of input.traffic) bySeq.set(event.seq, event);
  return { input, era: input.receiver.era ?? input.support.era ?? '2025-11-25', tasks, bySeq };
}

/** Observations that answered a question of ours (not pushes), with a usable status. */
export const answered = (o: ObservationEntry) => o.source !== 'notification' && o.status !== null;
/**
 * Observations with a usable status, whatever brought them (an answer, a push, a list item, a probe): the
 * status rules' evidence. A status seen once, even only in a push, counts at once.
 */
export const seen = (o: ObservationEntry) => o.status !== null;
export const terminal = (o: ObservationEntry) => isTerminal(o.status);
/**
 * When an observation started: when the question behind it went out, or its arrival for pushes and anything
 * unsent. An answer counts from when its request was sent, a push from when it arrived.
 */
export const askedAt = (o: ObservationEntry) => o.sentAt ?? o.at;

/**
 * For a terminal push no earlier answer had given: the first answer asked after it, when that answer says
 * otherwise and no result was handed over in between to confirm the push (answers that agree later, once the
 * task really ended, do not make the early push true). Such a push is contradicted, which
 * is pushes-consistent's business alone (the push, not the task, said something false).
 */
export function contradictingAnswer(
  task: TrackedTask,
  obs: readonly ObservationEntry[],
  i: number,
): ObservationEntry | undefined {
  const push = obs[i];
  if (!push || push.source !== 'notification' || !isTerminal(push.status)) return undefined;
  // Answered before the push, the status is the answer's news: a later change is status-transitions' business.
  if (obs.slice(0, i).some((o) => answered(o) && o.status === push.status)) return undefined;
  const next = obs.slice(i + 1).find((o) => answered(o) && askedAt(o) >= push.at);
  if (!next || next.status === push.status) return undefined;
  // A result handed over before that answer confirms that the task ended (not which way it ended): a later
  // answer saying working again is status-transitions' business, one ending otherwise contradicts the push.
  const confirmed =
    !isTerminal(next.status) &&
    task.entries.some(
      (e) => e.kind === 'result' && e.outcome === 'fetched' && e.at >= push.at && e.at <= askedAt(next),
    );
  return confirmed ? undefined : next;
}

/**
 * The task an answer hands out instead of its result, in the generation's own shape: 2025-11-25's
 * CreateTaskResult (`{task: {taskId, status, …}}`, both strings: another method's `task` field is not enough),
 * 2026-07-28's `resultType: "task"`. The task's id ('' when the 2026 answer names none), or undefined when the
 * answer is no task.
 */
export function taskAnswerId(result: Record<string, unknown>, era: Era): string | undefined {
  if (era === '2026-07-28') {
    if (result.resultType !== 'task') return undefined;
    return typeof result.taskId === 'string' ? result.taskId : '';
  }
  const task = result.task;
  return isObject(task) && typeof task.taskId === 'string' && typeof task.status === 'string'
    ? task.taskId
    : undefined;
}

export function offence(taskId: string | undefined, at: number, detail: string): Found {
  return { ...(taskId === undefined ? {} : { taskId }), at, detail, when: at };
}

export function wireOffence(event: TrafficEvent, detail: string, taskId?: string): Found {
  return {
    ...(taskId === undefined ? {} : { taskId }),
    trafficSeq: event.seq,
    at: event.wallTime,
    detail,
    when: event.wallTime,
  };
}

/** An answer from the receiver and the request it answers (ours), when the log has both. */
export interface Exchange {
  request: TrafficEvent;
  answer: TrafficEvent;
  params: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code?: number; message: string; data?: unknown };
}

/** Codes a receiver sends on purpose about the request itself, whatever HTTP status carries them. */
const REQUEST_CODES = new Set([-32600, -32601, -32602]);

/**
 * An HTTP failure (429, 502, a 4xx) says something about the request only when its body carries the JSON-RPC
 * error that answers it: a rate limit or a gateway's error page is no verdict on the rule, so it is left out.
 */
function deliberateHttpError(answer: TrafficEvent, error: Exchange['error']): boolean {
  if (error?.code === undefined) return false;
  const status = answer.httpStatus ?? 0;
  if (status === 429 || status >= 500) return REQUEST_CODES.has(error.code);
  return true;
}

/** Beyond this an HTTP error body is not read for a JSON-RPC error (the recorder keeps 2,000 characters). */
const MAX_HTTP_ERROR_BODY = 4000;

/**
 * The JSON-RPC error an answer carries: a JSON-RPC answer's own `error`, or, for an HTTP failure (recorded
 * as `{ httpStatus, body }`, src/mcp/guarded-fetch.ts), the `error` of its body when that is JSON-RPC.
 */
function rpcErrorOf(answer: TrafficEvent, message: Record<string, unknown>): unknown {
  if (answer.kind !== 'http-error') return message.error;
  const body = message.body;
  if (typeof body !== 'string' || body.length > MAX_HTTP_ERROR_BODY) return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    return isObject(parsed) ? parsed.error : undefined;
  } catch {
    return undefined;
  }
}

export function exchanges(ctx: Context, method: string): Exchange[] {
  const out: Exchange[] = [];
  for (const answer of ctx.input.traffic) {
    if (answer.direction !== 'in' || answer.method !== method || answer.requestSeq === undefined) continue;
    if (answer.kind !== 'response' && answer.kind !== 'error' && answer.kind !== 'http-error') continue;
    const request = ctx.bySeq.get(answer.requestSeq);
    if (!request || !isObject(request.message)) continue;
    const params = isObject(request.message.params) ? request.message.params : {};
    const message = isObject(answer.message) ? answer.message : {};
    // A body left out of the log (too big) says nothing either way.
    if (isOmittedBody(message)) continue;
    const found = rpcErrorOf(answer, message);
    const rawError = isObject(found) ? found : undefined;
    const error = rawError
      ? {
          code: typeof rawError.code === 'number' ? rawError.code : undefined,
          message: typeof rawError.message === 'string' ? rawError.message.slice(0, 300) : '',
          data: rawError.data,
        }
      : undefined;
    if (answer.kind === 'http-error' && !deliberateHttpError(answer, error)) continue;
    // An HTTP failure is never "answered with a result", whatever its body holds.
    const result = answer.kind !== 'http-error' && isObject(message.result) ? message.result : undefined;
    out.push({ request, answer, params, result, error });
  }
  return out;
}

export const taskIdOf = (params: Record<string, unknown>): string | undefined =>
  typeof params.taskId === 'string' ? params.taskId.slice(0, 200) : undefined;

export function shortTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}

/** An answer the rules can read: a JSON-RPC error, or a result object (never an empty or odd body). */
export const judgeable = (x: Exchange) => x.error !== undefined || x.result !== undefined;

/** How an exchange was answered, in a reason's words: its error code, or "with a result". */
export const answeredWith = (x: Exchange): string => (x.error ? String(x.error.code) : 'with a result');
