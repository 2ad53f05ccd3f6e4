/** The task of the 2026-07-28 tasks extension as the demo receiver keeps and serves it. */
export type TaskStatus2026 = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface InputRequest2026 {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params: Record<string, unknown>;
}

/** The task as the extension puts it on the wire: tasks/get, notifications/tasks. */
export interface DetailedTask {
  taskId: string;
  status: TaskStatus2026;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  inputRequests?: Record<string, InputRequest2026>;
  result?: Record<string, unknown>;
  error?: JsonRpcErrorObject;
}

export type TaskEvent = { type: 'changed'; task: DetailedTask } | { type: 'removed'; taskId: string };

export type TaskLookup = { kind: 'live'; task: DetailedTask } | { kind: 'expired' } | { kind: 'unknown' };

/** What a tool's detached work may do to its own task; every call is a no-op once the task has ended. */
export interface TaskHandle {
  readonly taskId: string;
  readonly signal: AbortSignal;
  sleep(ms: number): Promise<void>;
  working(statusMessage: string): void;
  setPollInterval(ms: number): void;
  complete(result: Record<string, unknown>, statusMessage?: string): void;
  fail(error: JsonRpcErrorObject, statusMessage?: string): void;
  /** Goes input_required with one request under `key` and waits for tasks/update to answer it. */
  ask<T>(key: string, request: InputRequest2026, parse: (value: unknown) => T | undefined): Promise<T>;
}

export interface AnswerOutcome {
  /** Keys that matched an outstanding request and were taken. */
  accepted: string[];
  /** Outstanding keys whose value is not a valid answer: left outstanding. */
  invalid: string[];
}

export const TERMINAL: ReadonlySet<TaskStatus2026> = new Set(['completed', 'failed', 'cancelled']);

export const isTerminal = (status: TaskStatus2026) => TERMINAL.has(status);
