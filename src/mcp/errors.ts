/** A non-2xx answer to a POST, with what the tracker needs to back off or reconnect. */
export class HttpStatusError extends Error {
  override readonly name = 'HttpStatusError';
  constructor(
    readonly status: number,
    readonly body: string,
    readonly retryAfterMs?: number,
  ) {
    super(`HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`);
    // `body` arrives already cut to a string of its own (guarded-fetch.ts), so this slice holds nothing large.
  }
}

/** Refused before anything was sent: the receiver or tool does not allow what was asked. */
export class LocalRefusal extends Error {
  override readonly name = 'LocalRefusal';
}

/** Retry-After is seconds or an HTTP date; anything else is ignored. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Our deadline for a short request ran out: the fetch was aborted and its connection freed. */
export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
  constructor(
    readonly method: string,
    readonly deadlineMs: number,
  ) {
    super(`no answer to ${method} within ${Math.round(deadlineMs / 1000)} s`);
  }
}

/** The receiver answered a request with a JSON-RPC id we did not send on that request. */
export class WrongResponseId extends Error {
  override readonly name = 'WrongResponseId';
  constructor(
    readonly expected: Array<string | number>,
    readonly received: Array<string | number | null>,
  ) {
    super(`answered with JSON-RPC id ${JSON.stringify(received)}, expected ${JSON.stringify(expected)}`);
  }
}

/** Asked while there is no session (the engine is reconnecting): nothing was sent. */
export class NoSession extends Error {
  override readonly name = 'NoSession';
  constructor() {
    super('No session with the receiver right now: Taskscope is reconnecting.');
  }
}

/** The local relay refused a request or could not pass the receiver's answer; nothing of the receiver's came back. */
export class RelayRefusal extends Error {
  override readonly name = 'RelayRefusal';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Taskscope's stdio bridge answered instead of the stdio server: it exited, too many run, or it was refused. */
export class StdioBridgeError extends Error {
  override readonly name = 'StdioBridgeError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The receiver speaks 2026-07-28 (its answer to initialize says so), but the browser never let our
 * server/discover through: its CORS does not allow the new headers (Mcp-Method, Mcp-Name, MCP-Protocol-Version).
 */
export class HeadersRefusedByCors extends Error {
  override readonly name = 'HeadersRefusedByCors';
}
