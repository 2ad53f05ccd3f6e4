/**
 * What the client rules are judged from: the messages of one client session as they passed between the client and
 * its server (Taskscope's proxy sees both sides), read into what the client asked about each task and what it
 * had been told when it asked. Pure and total: any message, however odd, is skipped or read as far as it goes.
 */
import {
  isObject,
  isTerminal,
  parseRetryAfter,
  TASK_STATUSES,
  type Era,
  type SeenMessage,
  type TaskStatus,
} from '../mcp';

const STATUS_SET: ReadonlySet<string> = new Set(TASK_STATUSES);

export type { SeenMessage };

/** What a task answer said, read from either generation's shape. */
export interface TaskFacts {
  status?: TaskStatus;
  pollInterval?: number;
  ttl?: number | null;
  /** 2026-07-28: the answer carried the result or the error inline. */
  inlineOutcome: boolean;
  /** The user documents' shape: `{task}` from tasks/get, `{taskId, status, result}` from tasks/result. */
  documentsShape: boolean;
}

/** A request the client sent, with the answer it got. */
export interface ClientRequest {
  at: number;
  wallTime: number;
  method: string;
  id: string | number;
  params: Record<string, unknown>;
  headers?: Readonly<Record<string, string>>;
  answer?: ServerAnswer;
}

export interface ServerAnswer {
  at: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  httpStatus?: number;
  /** ms the server asked the client to wait (Retry-After, or the error's retryAfter/retryAfterMs). */
  retryAfterMs?: number;
  task?: TaskFacts;
}

/** A status the server pushed (notifications/tasks/status, notifications/tasks). */
export interface Push {
  at: number;
  wallTime: number;
  taskId: string;
  facts: TaskFacts;
}

export interface ClientSession {
  era: Era;
  requests: ClientRequest[];
  /** The task-scoped requests per taskId (tasks/get, tasks/result, tasks/cancel, tasks/update), in order sent. */
  byTask: Map<string, ClientRequest[]>;
  /** The request that created each task (a tools/call answered with a task). */
  created: Map<string, ClientRequest>;
  pushes: Push[];
  /** The server's capabilities from its initialize answer (2025-11-25), when the session's start was seen. */
  serverCapabilities?: Record<string, unknown>;
  /** Each tool's execution.taskSupport from the tools/list answers seen. */
  taskSupport: Map<string, string>;
  /** The receiver follows the user documents (answers in their shapes, -32602 to an early tasks/result). */
  documentsFlavour: boolean;
  /** When the last message passed: how far the session was observed. */
  endAt: number;
  /** Notifications the client sent (notifications/cancelled and others). */
  notifications: Array<{ at: number; wallTime: number; method: string; params: Record<string, unknown> }>;
}

const TASK_METHODS = new Set(['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/update']);
const PUSH_METHODS = new Set([
  'notifications/tasks/status',
  'notifications/tasks/updated',
  'notifications/tasks',
]);
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

/** The task in an answer or a push: flat, `{task}`, or 2026-07-28's `resultType: "task"` / inline fields. */
export function readTaskFacts(raw: unknown): TaskFacts | undefined {
  if (!isObject(raw)) return undefined;
  const wrapped = isObject(raw.task) && !('status' in raw);
  const obj = wrapped ? (raw.task as Record<string, unknown>) : raw;
  const status =
    typeof obj.status === 'string' && STATUS_SET.has(obj.status) ? (obj.status as TaskStatus) : undefined;
  if (status === undefined && typeof obj.taskId !== 'string') return undefined;
  const ttlRaw = 'ttlMs' in obj ? obj.ttlMs : obj.ttl;
  return {
    status,
    pollInterval: num(obj.pollIntervalMs ?? obj.pollInterval),
    ttl: ttlRaw === null ? null : num(ttlRaw),
    inlineOutcome: 'result' in obj || 'error' in obj,
    documentsShape: wrapped || ('taskId' in raw && 'status' in raw && 'result' in raw),
  };
}

function header(headers: Readonly<Record<string, string>> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const direct = headers[name];
  if (direct !== undefined) return direct;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}
export { header as headerOf };

function retryAfterOf(seen: SeenMessage, error: ServerAnswer['error']): number | undefined {
  const fromHeader = parseRetryAfter(header(seen.responseHeaders, 'retry-after') ?? null, seen.wallTime);
  if (fromHeader !== undefined) return fromHeader;
  const data = error?.data;
  if (!isObject(data)) return undefined;
  const ms = num(data.retryAfterMs);
  if (ms !== undefined && ms > 0) return ms;
  const seconds = num(data.retryAfter);
  return seconds !== undefined && seconds > 0 ? seconds * 1000 : undefined;
}

function readError(raw: unknown): ServerAnswer['error'] {
  if (!isObject(raw)) return { code: 0, message: '' };
  return {
    code: typeof raw.code === 'number' ? raw.code : 0,
    message: typeof raw.message === 'string' ? raw.message : '',
    data: raw.data,
  };
}

/** The generation the client speaks: what it says on its requests. */
function eraOf(requests: readonly ClientRequest[]): Era {
  for (const request of requests) {
    if (request.method === 'initialize') return '2025-11-25';
    const meta = request.params._meta;
    if (isObject(meta) && meta[META_PROTOCOL_VERSION] === '2026-07-28') return '2026-07-28';
    if (header(request.headers, 'mcp-protocol-version') === '2026-07-28') return '2026-07-28';
  }
  return '2025-11-25';
}

/**
 * An answer belongs to the request its HTTP exchange carried: two clients judged together (one name, or more
 * sessions than the list holds) each count their ids from the start. Over stdio there is one client and no
 * exchange.
 */
const key = (id: string | number, exchange: number | undefined) =>
  `${exchange ?? ''}:${typeof id}:${String(id)}`;
/** Requests still waiting for an answer; one that never gets one cannot grow this. */
const MAX_PENDING = 10_000;

/** Reads one client session's messages, oldest first, into what the client rules judge. */
export function readClientSession(messages: readonly SeenMessage[], era?: Era): ClientSession {
  const requests: ClientRequest[] = [];
  const pending = new Map<string, ClientRequest>();
  const pushes: Push[] = [];
  const notifications: ClientSession['notifications'] = [];
  let endAt = 0;
  for (const seen of messages) {
    endAt = Math.max(endAt, seen.at);
    const m = seen.message;
    if (!isObject(m)) continue;
    const method = typeof m.method === 'string' ? m.method : undefined;
    const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
    const params = isObject(m.params) ? m.params : {};
    if (seen.from === 'client') {
      if (method !== undefined && id !== undefined) {
        const request: ClientRequest = { at: seen.at, wallTime: seen.wallTime, method, id, params };
        if (seen.headers) request.headers = seen.headers;
        requests.push(request);
        if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value as string);
        pending.set(key(id, seen.exchange), request);
      } else if (method !== undefined)
        notifications.push({ at: seen.at, wallTime: seen.wallTime, method, params });
      continue;
    }
    if (method !== undefined) {
      if (PUSH_METHODS.has(method)) {
        const facts = readTaskFacts(params);
        const taskId = typeof params.taskId === 'string' ? params.taskId : undefined;
        if (facts && taskId !== undefined)
          pushes.push({ at: seen.at, wallTime: seen.wallTime, taskId, facts });
      }
      continue;
    }
    if (id === undefined) continue;
    const request = pending.get(key(id, seen.exchange));
    if (!request) continue;
    pending.delete(key(id, seen.exchange));
    const answer: ServerAnswer = { at: seen.at };
    if (seen.httpStatus !== undefined) answer.httpStatus = seen.httpStatus;
    if ('error' in m) answer.error = readError(m.error);
    else if (isObject(m.result)) {
      answer.result = m.result;
      if (TASK_METHODS.has(request.method) || request.method === 'tools/call') {
        const facts = readTaskFacts(m.result);
        if (
          facts &&
          (request.method !== 'tools/call' || isObject(m.result.task) || m.result.resultType === 'task')
        )
          answer.task = facts;
      }
    }
    const wait = retryAfterOf(seen, answer.error);
    if (wait !== undefined) answer.retryAfterMs = wait;
    request.answer = answer;
  }
  return sessionFrom(requests, pushes, notifications, endAt, era ?? eraOf(requests));
}

function sessionFrom(
  requests: ClientRequest[],
  pushes: Push[],
  notifications: ClientSession['notifications'],
  endAt: number,
  era: Era,
): ClientSession {
  const byTask = new Map<string, ClientRequest[]>();
  const created = new Map<string, ClientRequest>();
  const taskSupport = new Map<string, string>();
  let serverCapabilities: Record<string, unknown> | undefined;
  let documentsFlavour = false;
  for (const request of requests) {
    const result = request.answer?.result;
    if (request.method === 'initialize' && isObject(result?.capabilities))
      serverCapabilities = result.capabilities;
    if (request.method === 'tools/list' && Array.isArray(result?.tools))
      for (const tool of result.tools)
        if (isObject(tool) && typeof tool.name === 'string') {
          const execution = isObject(tool.execution) ? tool.execution : {};
          taskSupport.set(
            tool.name,
            typeof execution.taskSupport === 'string' ? execution.taskSupport : 'forbidden',
          );
        }
    if (request.method === 'tools/call' && request.answer?.task) {
      const created_ = result && isObject(result.task) ? result.task : result;
      const taskId = created_ && typeof created_.taskId === 'string' ? created_.taskId : undefined;
      if (taskId !== undefined && !created.has(taskId)) created.set(taskId, request);
    }
    if (TASK_METHODS.has(request.method) && typeof request.params.taskId === 'string') {
      const list = byTask.get(request.params.taskId) ?? [];
      list.push(request);
      byTask.set(request.params.taskId, list);
      if (request.method !== 'tools/call' && request.answer?.task?.documentsShape) documentsFlavour = true;
    }
  }
  // A receiver that answers an early tasks/result -32602 follows the documents, not the spec (which blocks).
  for (const [taskId, list] of byTask)
    for (const request of list)
      if (request.method === 'tasks/result' && request.answer?.error?.code === -32602) {
        const status = statusKnownAt(list, pushes, taskId, request.at);
        if (status !== undefined && !isTerminal(status)) documentsFlavour = true;
      }
  const session: ClientSession = {
    era,
    requests,
    byTask,
    created,
    pushes,
    taskSupport,
    documentsFlavour,
    endAt,
    notifications,
  };
  if (serverCapabilities) session.serverCapabilities = serverCapabilities;
  return session;
}

/** The last status the client had been told of a task before `at`: in answers to its requests, or pushed. */
export function statusKnownAt(
  list: readonly ClientRequest[],
  pushes: readonly Push[],
  taskId: string,
  at: number,
  created?: ClientRequest,
): TaskStatus | undefined {
  let best: { at: number; status: TaskStatus } | undefined;
  const consider = (when: number, status: TaskStatus | undefined) => {
    if (status !== undefined && when < at && (!best || when >= best.at)) best = { at: when, status };
  };
  if (created?.answer) consider(created.answer.at, created.answer.task?.status);
  for (const request of list) if (request.answer) consider(request.answer.at, request.answer.task?.status);
  for (const push of pushes) if (push.taskId === taskId) consider(push.at, push.facts.status);
  return best?.status;
}
