import type {
  ClassifiedError,
  Era,
  Normalised,
  ServerTaskSupport,
  TaskSnapshot,
  TaskStatus,
  ToolInfo,
} from '../../mcp';
import type { Offence, RuleId, Verdict } from '../../rules/report-types';
import { CHECK_LIMITS, type CheckableTool } from './plan';

/**
 * What the active check's steps share: the target they probe, the timing, and the small set of moves every
 * step makes (ask with a deadline, read a task, grade a rule). The check itself (active-check.ts) provides them.
 */

/** What the check needs of a connection: its session's raw requests, the tools, and the tracker to hand tasks to. */
export interface CheckTarget {
  era: Era;
  support: ServerTaskSupport;
  request(
    method: string,
    params: Record<string, unknown>,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<unknown>;
  /** tools/list, with the check's deadline and its stop signal like every other request. */
  listTools(options: { timeoutMs: number; signal: AbortSignal }): Promise<ToolInfo[]>;
  /** A task the check created, so the person sees it with every other (and the passive rules judge it too). */
  created?(taskId: string, created: Normalised<TaskSnapshot | null>, call: CheckCall, sentAt: number): void;
  /**
   * What the check read of one of its tasks (tasks/get, or a listing after the end), added to that task's
   * observations so its timeline shows it and the passive rules judge it with the rest.
   */
  observed?(
    taskId: string,
    read: Normalised<TaskSnapshot | null>,
    meta: { source: 'list' | 'check'; sentAt: number },
  ): void;
}

export interface CheckCall {
  tool: string;
  args: Record<string, unknown>;
  ttl?: number;
}

export const TIMING = {
  /** tasks/get and the other short requests. */
  requestMs: CHECK_LIMITS.requestMs,
  /** tools/call that creates a task. */
  createMs: CHECK_LIMITS.createMs,
  /** The whole check. */
  overallMs: CHECK_LIMITS.overallMs,
  /** How long tasks/result on a running task is held before the check takes "it blocks" as the answer. */
  blockProbeMs: 2_000,
  /** The ttl the check asks for; short enough to see expire, long enough for the create answer to arrive. */
  shortTtlMs: 1_500,
  /** Expiries further away than this are not waited for (server-everything forces 300 s). */
  maxExpiryWaitMs: 10_000,
  /** After the ttl, how long before asking whether the task is gone. */
  expiryGraceMs: 1_000,
  /** 2026-07-28: how long a cancelled task is watched for reading cancelled. */
  cancelSettleMs: 3_000,
  /** After the last task the check started has ended, how long before it reads them all again. */
  readAgainAfterMs: CHECK_LIMITS.readAgainAfterMs,
  /** A request refused for its rate (HTTP 429, -32429) is sent again this many times, after the wait it names. */
  rateLimitRetries: 3,
  /** The wait before such a retry when the receiver names none, and the longest wait taken. */
  rateLimitWaitMs: 1_000,
  maxRateLimitWaitMs: 10_000,
};

export type Timing = typeof TIMING;

export class Stopped extends Error {
  override readonly name = 'Stopped';
}

/** A step's own way of saying it could not run, with the reason shown to the person. */
export class Skip extends Error {
  override readonly name = 'Skip';
}

export function skip(reason: string): never {
  throw new Skip(reason);
}

export const excerpt = (value: unknown) => {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

export const codeText = (error: ClassifiedError) =>
  error.code !== undefined ? `${error.code} (${error.message})` : error.message;

/**
 * `send` with an abort signal of its own that follows `parent`: the transport leaves its listener on the
 * signal it is given, so the check's one signal handed to every request would gather a listener per request.
 */
export async function withOwnSignal<T>(
  parent: AbortSignal,
  send: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const own = new AbortController();
  const onAbort = () => own.abort();
  if (parent.aborted) own.abort();
  else parent.addEventListener('abort', onAbort, { once: true });
  try {
    return await send(own.signal);
  } finally {
    parent.removeEventListener('abort', onAbort);
  }
}

/** A task the check started, and what it last read of it. */
export interface Subject {
  taskId: string;
  snapshot?: TaskSnapshot;
  /** Gone: purged or refused, nothing left to cancel. */
  gone?: boolean;
  /** The check sent tasks/cancel for it: a receiver may delete a cancelled task at any time. */
  cancelled?: boolean;
  /** When the create request went out (local clock): the ttl counts from about then. */
  sentAt: number;
  /** The first terminal status the check read, and when it read it (local clock). */
  ended?: { status: TaskStatus; at: number };
}

export type Attempt = { answer: unknown; error?: undefined } | { error: ClassifiedError; answer?: undefined };

/** The moves a step makes; every request carries the check's deadline and its stop signal. */
export interface Probe {
  readonly target: CheckTarget;
  readonly timing: Timing;
  readonly stopped: boolean;
  /** Aborted when the person stops the check. */
  readonly signal: AbortSignal;
  /** Every task the check started so far. */
  readonly started: readonly Subject[];
  /** A verdict on a rule, as seen by this probe. */
  find(id: RuleId, verdict: Verdict, reason: string, firstOffence?: Offence): void;
  /** A rule broken: a MUST fails, a SHOULD warns, a MAY informs. */
  broken(id: RuleId, reason: string, offence?: Offence): void;
  /**
   * A probe of `id` that could not run here: the rule reads "not judged" with the reason, unless something
   * else judged it. A skip alone never makes the run incomplete.
   */
  notJudged(id: RuleId, reason: string): never;
  /** The receiver's tools (tools/list, every page), asked once. */
  tools(): Promise<readonly ToolInfo[]>;
  /** The tool the check runs its tasks with, and its arguments; a skip when there is none. */
  taskTool(): Promise<CheckableTool>;
  /** The request's JSON-RPC error, or the answer; a missing answer (network, deadline) is thrown on. */
  attempt(method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<Attempt>;
  sleep(ms: number): Promise<void>;
  /** tasks/get on a task the check started (an observation of it too); null when the receiver says it is gone. */
  read(subject: Subject): Promise<TaskSnapshot | null>;
  /** Creates a task with the chosen tool; null when the receiver answered at once (2026-07-28 may). */
  createTask(ttl?: number): Promise<Subject | null>;
  /**
   * A tools/call answer that carries a task, taken as one of the check's tasks (followed, shown, cancelled at
   * the end); null when the answer is no task.
   */
  adopt(raw: unknown, call: CheckCall, sentAt: number): Subject | null;
  /** The task the cancel and result probes share, started at the first probe that needs it. */
  mainSubject(): Promise<Subject>;
}
