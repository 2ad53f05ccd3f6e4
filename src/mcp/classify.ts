import {
  DeadlineExceeded,
  HttpStatusError,
  LocalRefusal,
  HeadersRefusedByCors,
  NoSession,
  RelayRefusal,
  StdioBridgeError,
  WrongResponseId,
} from './errors';
import { cutText } from './json';
import { isSessionLost } from './protocol-rules';

export const ERROR_KINDS = [
  'purged',
  'unknown-task',
  'not-ready',
  'unsupported',
  'rate-limited',
  'session-lost',
  'auth',
  'cors-or-network',
  'protocol',
  'timeout',
  'other',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

export interface ClassifiedError {
  kind: ErrorKind;
  /** One line a person understands: what happened and what to do. */
  message: string;
  /** JSON-RPC error code, when there was one. */
  code?: number;
  httpStatus?: number;
  retryAfterMs?: number;
  /** The receiver's own words, for the detail view. */
  detail?: string;
  /**
   * What a probe found behind a network failure: the receiver answers but refuses this origin (cors), or
   * nothing answers there (unreachable).
   */
  diagnosis?: 'cors' | 'unreachable';
}

/**
 * A failure already classified, thrown where its kind is known (an engine command that cannot be done, its
 * failure arriving on the page): `classifyError` gives its `classified` back as it is.
 */
export class ClassifiedFailure extends Error {
  override readonly name = 'ClassifiedFailure';
  constructor(readonly classified: ClassifiedError) {
    super(classified.message);
  }
}

export interface ErrorContext {
  /** The JSON-RPC method that failed. */
  method?: string;
  /** The tracker has seen this task before (so -32602 means it is gone, not that it never was). */
  knownTask?: boolean;
  /** The task's last known status is non-terminal (so -32602 from tasks/result means "not ready yet"). */
  taskLive?: boolean;
  /** The receiver URL that was tried, named in what a person reads. */
  url?: string;
  /** The receiver offers a sign-in (a Bearer challenge came): a 401 asks the person to sign in. */
  signIn?: boolean;
}

const JSONRPC = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  tooManyRequests: -32429,
  sdkTimeout: -32001,
  sdkConnectionClosed: -32000,
  headerMismatch: -32020,
  missingCapability: -32021,
  unsupportedVersion: -32022,
} as const;

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

const oneLine = (s: string, max = 300) =>
  cutText(
    cutText(s, max * 4)
      .replace(/\s+/g, ' ')
      .trim(),
    max,
  );

function classifyHttp(
  status: number,
  detail: string,
  retryAfterMs?: number,
  ctx: ErrorContext = {},
): ClassifiedError {
  const base = { httpStatus: status, detail: oneLine(detail) };
  if (status === 429) {
    return {
      ...base,
      kind: 'rate-limited',
      retryAfterMs,
      message: 'The receiver is rate-limiting (HTTP 429); backing off.',
    };
  }
  if (ctx.method === 'initialize' && (status === 404 || status === 405)) {
    return {
      ...base,
      kind: 'other',
      message: `No MCP endpoint at ${ctx.url ? cutText(ctx.url, 300) : 'this URL'}: it answered HTTP ${status} to initialize. Check the path.`,
    };
  }
  // Before initialize there is no session to lose; after it, the one rule in rules.ts.
  if (isSessionLost(status, detail, ctx.method !== 'initialize')) {
    return {
      ...base,
      kind: 'session-lost',
      message: 'The receiver no longer knows this session; reconnect to start a new one.',
    };
  }
  if (status === 401) {
    return {
      ...base,
      kind: 'auth',
      message: ctx.signIn
        ? 'The receiver asks you to sign in (HTTP 401): use Sign in.'
        : 'The receiver wants credentials (HTTP 401): add an Authorization header.',
    };
  }
  if (status === 403) {
    const origin = /origin/i.test(detail);
    return {
      ...base,
      kind: 'auth',
      message: origin
        ? "The receiver refused this page's Origin (HTTP 403): allow it on the receiver."
        : 'The receiver refused the request (HTTP 403): check the credentials and allowed origins.',
    };
  }
  if (status === 405) {
    return { ...base, kind: 'unsupported', message: 'The receiver does not accept this HTTP method (405).' };
  }
  if (status === 415 || status === 406) {
    return {
      ...base,
      kind: 'protocol',
      message: `The receiver rejected the message format (HTTP ${status}).`,
    };
  }
  // A JSON-RPC error in the body is the receiver's own sentence: said whole, not cut inside an excerpt.
  const said = jsonRpcErrorOf(detail);
  if (said)
    return {
      ...base,
      kind: 'other',
      code: said.code,
      message: `The receiver answered HTTP ${status}: ${cutText(said.message, 1000)}`,
    };
  return { ...base, kind: 'other', message: `The receiver answered HTTP ${status}.` };
}

/** `{"error": {"code", "message"}}` read from an HTTP body, when that is what it holds. */
function jsonRpcErrorOf(body: string): { code?: number; message: string } | undefined {
  if (!body.trimStart().startsWith('{')) return undefined;
  try {
    const error = field(JSON.parse(body), 'error');
    const message = field(error, 'message');
    const code = field(error, 'code');
    if (typeof message !== 'string' || message.trim() === '') return undefined;
    return { message, ...(typeof code === 'number' && Number.isFinite(code) ? { code } : {}) };
  } catch {
    // A body cut short (the error's data can be long): its message usually comes before the cut.
    const match = /"error"\s*:\s*\{[^{}]*?"message"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(body);
    try {
      const message: unknown = match?.[1] ? JSON.parse(match[1]) : undefined;
      return typeof message === 'string' && message.trim() !== '' ? { message } : undefined;
    } catch {
      return undefined;
    }
  }
}

function classifyJsonRpc(code: number, raw: string, data: unknown, ctx: ErrorContext): ClassifiedError {
  const detail = oneLine(raw.replace(/^MCP error -?\d+:\s*/, ''));
  const base = { code, detail };
  switch (code) {
    case JSONRPC.headerMismatch:
      return {
        ...base,
        kind: 'protocol',
        message: `The receiver says the request's headers and body disagree (-32020): a proxy on the way may have changed a header. ${detail}`,
      };
    case JSONRPC.missingCapability:
      return {
        ...base,
        kind: 'unsupported',
        message: `The receiver needs a capability the request did not declare (-32021): this call can run only as a task, and tasks need the 2026-07-28 tasks extension. ${detail}`,
      };
    case JSONRPC.unsupportedVersion: {
      const supported = field(data, 'supported');
      const list = Array.isArray(supported) ? supported.filter((v) => typeof v === 'string').join(', ') : '';
      return {
        ...base,
        kind: 'protocol',
        message: list
          ? `The receiver does not speak this protocol version (-32022); it supports ${cutText(list, 200)}. ${detail}`
          : `The receiver does not speak this protocol version (-32022). ${detail}`,
      };
    }
    case JSONRPC.invalidParams: {
      const method = ctx.method ?? '';
      if (method === 'tools/call' && /content is required when the body carries 'task'/.test(detail))
        return {
          ...base,
          kind: 'protocol',
          message:
            'The receiver refused its own task result: a 2026-07-28 server answering on its 2025-11-25 side, which has no task runtime. Connect with the protocol on auto or 2026-07-28.',
        };
      // Server SDKs check what a tool returns before it goes out, and answer a malformed one with -32602 as if
      // the call were at fault (server 2.4 on 2026-07-28: a bare `{task}`, a task result carrying inputRequests).
      if (method === 'tools/call' && /^Invalid tools\/call result\b/i.test(detail))
        return {
          ...base,
          kind: 'protocol',
          message: `The receiver's own SDK refused the result its tool returned: a fault in the receiver's tool, not in the arguments sent. ${detail}`,
        };
      const isTaskMethod = method.startsWith('tasks/');
      if (method === 'tasks/result' && ctx.taskLive) {
        return {
          ...base,
          kind: 'not-ready',
          message: 'The result is not ready yet; Taskscope keeps polling tasks/get.',
        };
      }
      if (isTaskMethod && ctx.knownTask) {
        return {
          ...base,
          kind: 'purged',
          message: 'The receiver no longer has this task (expired or purged); what was fetched is kept.',
        };
      }
      if (isTaskMethod || (!method && /task/i.test(detail))) {
        if (!method && /expired|purged/i.test(detail)) {
          return {
            ...base,
            kind: 'purged',
            message: 'The receiver says this task has expired; what was fetched is kept.',
          };
        }
        return {
          ...base,
          kind: 'unknown-task',
          message: 'The receiver does not know this task id (wrong id, or another session).',
        };
      }
      return { ...base, kind: 'other', message: `The receiver rejected the parameters: ${detail}` };
    }
    case JSONRPC.methodNotFound:
      return {
        ...base,
        kind: 'unsupported',
        message: `The receiver does not support ${ctx.method ?? 'this method'} (-32601).`,
      };
    case JSONRPC.invalidRequest:
      return ctx.method === 'tools/call'
        ? {
            ...base,
            kind: 'unsupported',
            message: 'The receiver refused to run this tool as a task (-32600).',
          }
        : { ...base, kind: 'protocol', message: `The receiver called the request invalid: ${detail}` };
    case JSONRPC.tooManyRequests: {
      // retryAfterMs is in ms, retryAfter in seconds (as HTTP's Retry-After); the explicit unit wins.
      const ms = Number(field(data, 'retryAfterMs'));
      const seconds = Number(field(data, 'retryAfter'));
      const retryAfterMs =
        Number.isFinite(ms) && ms > 0
          ? ms
          : Number.isFinite(seconds) && seconds > 0
            ? seconds * 1000
            : undefined;
      return {
        ...base,
        kind: 'rate-limited',
        retryAfterMs,
        message: 'Too many requests (-32429): backing off before the next poll.',
      };
    }
    case JSONRPC.sdkTimeout:
      if (/timed out|timeout/i.test(raw)) {
        return {
          ...base,
          kind: 'timeout',
          message: ctx.method
            ? `Receiver not answering: no answer to ${ctx.method} in time.`
            : 'The receiver did not answer in time.',
        };
      }
      if (/session/i.test(raw)) {
        return {
          ...base,
          kind: 'session-lost',
          message: 'The receiver no longer knows this session; reconnect to start a new one.',
        };
      }
      return { ...base, kind: 'other', message: `The receiver answered an error: ${detail}` };
    case JSONRPC.sdkConnectionClosed:
      return { ...base, kind: 'cors-or-network', message: 'The connection to the receiver closed.' };
    case JSONRPC.parse:
      return { ...base, kind: 'protocol', message: 'The receiver could not parse the message (-32700).' };
    default:
      return { ...base, kind: 'other', message: `The receiver answered error ${code}: ${detail}` };
  }
}

/**
 * Turns anything thrown while talking to a receiver into one of a few kinds the tracker and the UI act on.
 * Total: it never throws, whatever it is given.
 */
export function classifyError(error: unknown, ctx: ErrorContext = {}): ClassifiedError {
  try {
    if (error instanceof ClassifiedFailure) return error.classified;
    if (error instanceof LocalRefusal) {
      return { kind: 'unsupported', message: error.message };
    }
    if (error instanceof HeadersRefusedByCors) {
      return { kind: 'cors-or-network', diagnosis: 'cors', message: error.message };
    }
    if (error instanceof NoSession) {
      return { kind: 'session-lost', message: error.message };
    }
    if (error instanceof RelayRefusal) {
      return {
        kind: /text\/html|web page/i.test(error.message) ? 'protocol' : 'other',
        message: `The local relay: ${cutText(error.message, 300)}`,
        httpStatus: error.status,
      };
    }
    if (error instanceof StdioBridgeError) {
      // Its own sentence says what happened to the process ("The stdio server exited with code 1: …").
      return { kind: 'other', message: cutText(error.message, 600), httpStatus: error.status };
    }
    if (error instanceof HttpStatusError) {
      return classifyHttp(error.status, error.body, error.retryAfterMs, ctx);
    }
    // A 401/403 whose body is a JSON-RPC error (read as one for 2026-07-28) is still a sign-in wall.
    const httpStatus = field(error, 'httpStatus');
    if (httpStatus === 401 || httpStatus === 403)
      return classifyHttp(httpStatus, textOf(field(error, 'message') ?? ''), undefined, ctx);
    if (error instanceof DeadlineExceeded) {
      return {
        kind: 'timeout',
        message: `Receiver not answering: ${error.message}; the request was dropped and its connection freed.`,
      };
    }
    if (error instanceof WrongResponseId) {
      return {
        kind: 'protocol',
        message: `The receiver ${error.message}: a JSON-RPC answer must carry its request's id.`,
      };
    }
    const name = field(error, 'name');
    const message = textOf(field(error, 'message') ?? error);
    if (name === 'AbortError' || name === 'TimeoutError') {
      return {
        kind: 'timeout',
        message: 'The request was aborted before the receiver answered.',
        detail: oneLine(message),
      };
    }
    if (error instanceof TypeError && /fetch|network|load failed|networkerror/i.test(message)) {
      const cause = oneLine(textOf(field(field(error, 'cause'), 'code') ?? field(error, 'cause') ?? ''));
      return {
        kind: 'cors-or-network',
        detail: oneLine(`${message} ${cause}`),
        message: /ECONNREFUSED/.test(cause)
          ? 'Connection refused: is the receiver running at that address?'
          : ctx.method && ctx.method !== 'initialize'
            ? // The session was opened, so CORS let us through before: this is the receiver going away.
              'The receiver cannot be reached now (connection refused or dropped); it answered before, so this is not CORS.'
            : 'The receiver could not be reached, or it does not allow this origin (CORS): check the URL and its CORS settings.',
      };
    }
    if (name === 'ZodError' || name === '$ZodError' || error instanceof SyntaxError) {
      return {
        kind: 'protocol',
        message: 'The receiver sent something that is not valid JSON-RPC.',
        detail: oneLine(message),
      };
    }
    const code = field(error, 'code');
    if (typeof code === 'number' && Number.isFinite(code)) {
      // The SDK's StreamableHTTPError carries the HTTP status as its code; JSON-RPC codes are negative.
      if (code >= 100 && code < 600) return classifyHttp(code, message, undefined, ctx);
      if (code === -1 && /text\/html/i.test(message))
        return {
          kind: 'protocol',
          message: `${ctx.url ? cutText(ctx.url, 300) : 'This URL'} answers with a web page (text/html), not an MCP endpoint: check the address and path.`,
          detail: oneLine(message),
        };
      if (code === -1)
        return {
          kind: 'protocol',
          message: 'The receiver answered with an unexpected content type.',
          detail: oneLine(message),
        };
      return classifyJsonRpc(code, message, field(error, 'data'), ctx);
    }
    if (/timed? ?out/i.test(message))
      return { kind: 'timeout', message: 'The receiver did not answer in time.', detail: oneLine(message) };
    return { kind: 'other', message: `Unexpected error: ${oneLine(message, 200) || 'no detail'}` };
  } catch {
    return { kind: 'other', message: 'Unexpected error (unreadable)' };
  }
}
