/**
 * Protocol rules that more than one layer needs, each written once: the related-task `_meta`, the sampling
 * reply, when a receiver has forgotten our session, how schema issues are named, and the backoff formula.
 */

/** The `_meta` key that ties a message to a task (MCP 2025-11-25, Tasks). */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/** The task a request or result names in its related-task `_meta`, when it names one. */
export function relatedTaskId(params: unknown): string | undefined {
  const meta = (params as { _meta?: Record<string, { taskId?: unknown } | undefined> } | null)?._meta;
  const taskId = meta?.[RELATED_TASK_META]?.taskId;
  return typeof taskId === 'string' ? taskId : undefined;
}

/** Our answer to a receiver's request carries the task it belongs to, as the request did. */
export function withRelatedTask(
  result: Record<string, unknown>,
  taskId: string | undefined,
): Record<string, unknown> {
  return taskId ? { ...result, _meta: { [RELATED_TASK_META]: { taskId } } } : result;
}

/** A person's reply to sampling/createMessage, as a CreateMessageResult. */
export function samplingReply(reply: { text: string; model: string }): Record<string, unknown> {
  return {
    role: 'assistant',
    content: { type: 'text', text: reply.text },
    model: reply.model,
    stopReason: 'endTurn',
  };
}

/** The JSON-RPC error code of a person's refusal of a sampling request (as in the MCP specification). */
export const USER_REJECTED_CODE = -1;

/**
 * A plain call of a task-required tool refused: 2025-11-25 names -32601 (Method not found); -32600 (Invalid
 * request) refuses it as plainly. An isError result does not: the tool's answer is no refusal of the call.
 */
export const PLAIN_CALL_REFUSALS: ReadonlySet<number> = new Set([-32601, -32600]);

/**
 * Streamable HTTP: a 404 to a request that carried our session id means the receiver no longer knows the
 * session; SDK receivers sometimes answer 400 naming the session instead.
 */
export function isSessionLost(status: number, body: string, hadSessionId: boolean): boolean {
  return hadSessionId && (status === 404 || (status === 400 && /session/i.test(body)));
}

/** The fields a schema check complained about, once each, `(root)` for the value itself. */
export function schemaIssuePaths(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey> }>): string[] {
  return [...new Set(issues.map((i) => i.path.map(String).join('.') || '(root)'))];
}

/**
 * How long a request may take before we abort it and free its connection. Short requests get a deadline;
 * tools/call (a plain call may wait for a person) and tasks/result (blocks until the task ends on 2025-11-25
 * receivers) stay open by design and get none.
 */
export function requestDeadlineMs(method: string): number | undefined {
  // subscriptions/listen (2026-07-28) is a stream that stays open for as long as it is wanted.
  if (method === 'tools/call' || method === 'tasks/result' || method === 'subscriptions/listen')
    return undefined;
  // A probe for the newer generation: a receiver that does not answer it quickly gets initialize instead.
  if (method === 'server/discover') return 5_000;
  // A poll is tiny; a receiver that takes longer than this is, for a person watching, not answering.
  if (method === 'tasks/get') return 5_000;
  return 10_000;
}

/** Reconnects of the notification stream are at least this far apart, whatever `retry:` the stream asks. */
export const STREAM_RECONNECT_FLOOR_MS = 1_000;

/** Backoff after rate limits and transport errors doubles from 1 s up to this. */
export const MAX_BACKOFF_MS = 30_000;
const FIRST_BACKOFF_MS = 1000;

/** The next backoff after a failure: doubles from 1 s, capped at 30 s. */
export function nextBackoff(currentMs: number): number {
  return Math.min(MAX_BACKOFF_MS, currentMs > 0 ? currentMs * 2 : FIRST_BACKOFF_MS);
}

/** The wait before attempt `attempt + 1` of an idempotent request: the same doubling, by attempt number. */
export function backoffForAttempt(attempt: number): number {
  return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, attempt - 1));
}

/** The 2026-07-28 generation: no initialize, no session; the tasks extension's id. */
export const PROTOCOL_2026 = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** The per-request `_meta` envelope of 2026-07-28, and the key a server names itself under in results. */
export const META_2026 = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;
/** 2026-07-28 error codes: headers and body disagree; a capability the call needs is not declared; version. */
export const HEADER_MISMATCH_CODE = -32020;
export const MISSING_CAPABILITY_CODE = -32021;
export const UNSUPPORTED_VERSION_CODE = -32022;
