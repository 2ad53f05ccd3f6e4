import { capMap } from './bounded-lists';
import {
  DeadlineExceeded,
  HttpStatusError,
  StdioBridgeError,
  WrongResponseId,
  parseRetryAfter,
} from './errors';
import { cutText } from './json';
import {
  MAX_BACKOFF_MS,
  STREAM_RECONNECT_FLOOR_MS,
  isSessionLost,
  requestDeadlineMs,
} from './protocol-rules';
import { redactHeaders } from './redact-headers';
import type { HttpFacts, TrafficTap } from './traffic';

export interface FetchHooks {
  /** The receiver answered 404 (or 400 naming the session) to our session id. */
  sessionLost?: () => void;
  /** The GET stream was opened (true) or refused (false). */
  notificationStream?: (open: boolean) => void;
  /** Each POST's fate, for the connection's health: answered, or failed (network, deadline, 5xx). */
  outcome?: (ok: boolean, error?: unknown) => void;
  /** A streamed answer to these requests ended or broke off: any still unanswered will not be. */
  answerEnded?: (requestIds: Array<string | number>) => void;
}

interface Sent {
  id?: string | number;
  method?: string;
}

/** Answers larger than this are handed on unread: checking their ids is not worth reading them twice. */
const MAX_CHECKED_ANSWER = 1_000_000;
/** A stream that lived less than this before the next reconnect counts as failing fast. */
const STREAM_STABLE_MS = 10_000;

function messagesOf(body: unknown): Sent[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(body);
    return (Array.isArray(parsed) ? parsed : [parsed]).map((m: Sent) => ({
      id: typeof m?.id === 'string' || typeof m?.id === 'number' ? m.id : undefined,
      method: typeof m?.method === 'string' ? m.method : undefined,
    }));
  } catch {
    return [];
  }
}

/** Any one answer larger than this is cut off with an error: a receiver must not fill the tab's memory. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

const tooLarge = () =>
  new Error(`the receiver's answer passed ${MAX_ANSWER_BYTES / 1024 / 1024} MB and was cut off`);

/**
 * A body without a declared length as text, failing past MAX_ANSWER_BYTES. Read from its own reader: a poll's
 * answer read through `capped` cost a second stream, a Response around it and a promise per chunk.
 */
async function readCapped(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let seen = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    seen += value.byteLength;
    if (seen > MAX_ANSWER_BYTES) {
      const error = tooLarge();
      void reader.cancel(error).catch(() => undefined);
      throw error;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/**
 * The body, failing past MAX_ANSWER_BYTES; `onEnd` runs when it ends normally, `onFail` when it breaks off
 * (cut here, or by the network), so whoever waits on an answer in it can stop waiting.
 */
function capped(
  body: ReadableStream<Uint8Array>,
  onEnd?: () => void,
  onFail?: (error: unknown) => void,
): ReadableStream<Uint8Array> {
  let seen = 0;
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          onEnd?.();
          controller.close();
          return;
        }
        seen += value.byteLength;
        if (seen > MAX_ANSWER_BYTES) {
          const error = tooLarge();
          void reader.cancel(error).catch(() => undefined);
          onFail?.(error);
          controller.error(error);
          return;
        }
        controller.enqueue(value);
      } catch (error) {
        onFail?.(error);
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** An error answer is read this far at most: enough for its message, not a 20 MB web page. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The first `max` bytes of a body as text; the rest is not read (the stream is cancelled). */
async function readUpTo(response: Response, max: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let seen = 0;
  while (seen < max) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    seen += value.byteLength;
  }
  void reader.cancel().catch(() => undefined);
  const bytes = new Uint8Array(Math.min(seen, max));
  let at = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, Math.min(chunk.byteLength, bytes.length - at));
    bytes.set(part, at);
    at += part.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** A hostile receiver's headers are kept this far: enough for any real exchange, not a megabyte of them. */
const MAX_KEPT_HEADERS = 100;
const MAX_HEADER_VALUE = 2000;

/** Distinct header sets kept for sharing; a poll's headers repeat, so a handful covers a whole session. */
const MAX_SHARED_HEADER_SETS = 64;

/**
 * Headers as plain records for the tap, secret values redacted here so no log or export ever holds them. A set
 * seen before is handed out again as the same object: polls repeat their headers, and one object referenced by
 * many events is cloned once per batch to the page and kept once there (npm run bench:ui measured the copies).
 * Records are shared, so nothing may change one after it is made.
 */
function headerKeeper(): (headers: HeadersInit | undefined) => Record<string, string> {
  const shared = new Map<string, Record<string, string>>();
  return (headers) => {
    const pairs: Array<[string, string]> = [];
    let key = '';
    // The SDK's request headers and every response's are a Headers already: read, not copied, on each poll.
    for (const [name, value] of headers instanceof Headers ? headers : new Headers(headers)) {
      if (pairs.length >= MAX_KEPT_HEADERS) break;
      const kept = cutText(value, MAX_HEADER_VALUE);
      pairs.push([name, kept]);
      key += `${name}\u0000${kept}\u0001`;
    }
    const known = shared.get(key);
    if (known) return known;
    const record: Record<string, string> = {};
    for (const [name, value] of pairs)
      Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
    const redacted = redactHeaders(record);
    shared.set(key, redacted);
    capMap(shared, MAX_SHARED_HEADER_SETS);
    return redacted;
  };
}

function urlOf(input: RequestInfo | URL): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The fetch of each request in flight, by JSON-RPC id, so a cancel can end it: the SDK's timeout and its abort
 * signal reject the promise and send notifications/cancelled, but leave the fetch (and its connection) open.
 */
export type InFlightRequests = Map<string | number, AbortController>;

/**
 * The fetch under the SDK transport, where the rules a browser needs against a broken or hostile receiver
 * live: every short request has a deadline that aborts it and frees its connection (the SDK's own timeout
 * rejects the promise but leaves the fetch running); a JSON answer carrying another request's id fails at
 * once instead of after a minute; notification-stream reconnects have a floor whatever `retry:` says; a
 * failed POST becomes an HttpStatusError with its status, body and Retry-After; and the tap learns each
 * POST's HTTP status.
 */
export function guardedFetch(
  base: typeof fetch,
  tap: TrafficTap,
  hooks: FetchHooks,
  inFlight: InFlightRequests = new Map(),
): typeof fetch {
  let lastStreamAt = -Infinity;
  let streamGap = STREAM_RECONNECT_FLOOR_MS;
  const keepHeaders = headerKeeper();

  const openStream = async (input: RequestInfo | URL, init: RequestInit | undefined) => {
    const now = Date.now();
    streamGap =
      now - lastStreamAt < STREAM_STABLE_MS
        ? Math.min(MAX_BACKOFF_MS, streamGap * 2)
        : STREAM_RECONNECT_FLOOR_MS;
    const wait = lastStreamAt + streamGap - now;
    if (wait > 0) await sleep(wait, init?.signal);
    lastStreamAt = Date.now();
    let response: Response;
    try {
      response = await base(input, init);
    } catch (error) {
      // The stdio bridge answering for the stream is news of the process (it exited): the only news of it
      // while no request is out.
      if (error instanceof StdioBridgeError) hooks.outcome?.(false, error);
      throw error;
    }
    hooks.notificationStream?.(response.ok);
    return response;
  };

  const post = async (input: RequestInfo | URL, init: RequestInit) => {
    const sent = messagesOf(init.body);
    const requestIds = sent.flatMap((m) => (m.id !== undefined && m.method ? [m.id] : []));
    const deadlines = sent.map((m) => (m.method ? requestDeadlineMs(m.method) : 10_000));
    const deadline = deadlines.some((d) => d === undefined)
      ? undefined
      : Math.min(...(deadlines as number[]));
    const label = sent.find((m) => m.method)?.method ?? 'the request';
    // Our own timer rather than AbortSignal.timeout, so tests can run it on fake time.
    const expiry = deadline === undefined ? undefined : new AbortController();
    const expiryTimer =
      expiry && setTimeout(() => expiry.abort(new DOMException('deadline', 'TimeoutError')), deadline);
    const timer = expiry?.signal;
    const cancel = new AbortController();
    for (const id of requestIds) inFlight.set(id, cancel);
    const release = () => {
      for (const id of requestIds) if (inFlight.get(id) === cancel) inFlight.delete(id);
    };
    cancel.signal.addEventListener('abort', release, { once: true });
    const signals = [init.signal, timer, requestIds.length > 0 ? cancel.signal : undefined].filter(
      (s): s is AbortSignal => s !== undefined && s !== null,
    );
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const overdue = (error: unknown) => {
      clearTimeout(expiryTimer);
      release();
      return timer?.aborted && deadline !== undefined ? new DeadlineExceeded(label, deadline) : error;
    };
    const wallStartedAt = Date.now();
    let response: Response;
    try {
      response = await base(input, { ...init, signal });
    } catch (error) {
      const failure = overdue(error);
      hooks.outcome?.(false, failure);
      throw failure;
    }
    tap.noteHttpStatus(requestIds, response.status);
    const http: HttpFacts | undefined =
      requestIds.length === 0
        ? undefined
        : {
            method: 'POST',
            url: urlOf(input),
            requestHeaders: keepHeaders(init.headers),
            status: response.status,
            responseHeaders: keepHeaders(response.headers),
            wallStartedAt,
            waitMs: Date.now() - wallStartedAt,
          };
    if (http) tap.noteHttp(requestIds, http);
    if (!response.ok) {
      const body = await readUpTo(response, MAX_ERROR_BODY_BYTES).catch(() => '');
      clearTimeout(expiryTimer);
      release();
      const hadSession = new Headers(init.headers).has('mcp-session-id');
      if (isSessionLost(response.status, body, hadSession)) hooks.sessionLost?.();
      const kept = cutText(body, 2000);
      tap.record(
        'in',
        { httpStatus: response.status, body: kept },
        { httpStatus: response.status, kind: 'http-error', http, inReplyTo: requestIds[0] },
      );
      const failure = new HttpStatusError(
        response.status,
        kept,
        parseRetryAfter(response.headers.get('retry-after')),
      );
      hooks.outcome?.(response.status < 500 && response.status !== 429, failure);
      throw failure;
    }
    const type = response.headers.get('content-type') ?? '';
    const length = Number(response.headers.get('content-length') ?? NaN);
    const sse = type.includes('text/event-stream');
    if (requestIds.length === 0 || !response.body) {
      clearTimeout(expiryTimer);
      release();
      // A notification's 202 says the receiver is up, not that it answers: health counts requests only.
      return response;
    }
    if (sse || !type.includes('application/json') || length > MAX_CHECKED_ANSWER) {
      // Read by the SDK. The deadline and a cancel stay armed until the body ends: a receiver that sends its
      // headers and then stalls cannot keep the connection. A body past MAX_ANSWER_BYTES is cut off.
      const done = () => {
        clearTimeout(expiryTimer);
        release();
        hooks.outcome?.(true);
      };
      timer?.addEventListener(
        'abort',
        () => hooks.outcome?.(false, new DeadlineExceeded(label, deadline ?? 0)),
        {
          once: true,
        },
      );
      return new Response(
        capped(
          response.body,
          () => {
            done();
            hooks.answerEnded?.(requestIds);
          },
          () => hooks.answerEnded?.(requestIds),
        ),
        {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        },
      );
    }
    // A JSON answer is read here, within the deadline, so a body that never ends is aborted too, and an
    // answer to another id is reported now (the SDK would drop it and wait for its own timeout).
    let text: string;
    try {
      // A declared length is enforced by fetch itself; only a chunked body needs counting on the way.
      text = Number.isFinite(length) ? await response.text() : await readCapped(response.body);
    } catch (error) {
      const failure = overdue(error);
      hooks.outcome?.(false, failure);
      throw failure;
    }
    clearTimeout(expiryTimer);
    release();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON after all: the SDK reports that in its own words.
      hooks.outcome?.(true);
      return new Response(text, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
    const answered = (Array.isArray(parsed) ? parsed : [parsed]).map((m: { id?: unknown }) =>
      typeof m?.id === 'string' || typeof m?.id === 'number' ? m.id : null,
    );
    if (answered.length > 0 && !requestIds.some((id) => answered.includes(id))) {
      const failure = new WrongResponseId(requestIds, answered);
      tap.record('in', parsed, { httpStatus: response.status });
      hooks.outcome?.(false, failure);
      throw failure;
    }
    hooks.outcome?.(true);
    // Parsed once here; the SDK reads the same value rather than parsing the text again (bench:ui profile).
    // The answer goes on as it came, its body read: a new Response for it copied its headers on every poll.
    // Its body shows as none, as that Response's did: the stream is spent and locked, and the SDK would fail
    // cancelling it (it cancels the body of a 202).
    Object.defineProperties(response, {
      json: { value: () => Promise.resolve(parsed) },
      text: { value: () => Promise.resolve(text) },
      body: { value: null },
      bodyUsed: { value: false },
    });
    return response;
  };

  return async (input, given) => {
    // No cookies or HTTP authentication go to a receiver: what it needs goes in headers the person set. A
    // credentialed 401 with `WWW-Authenticate: Basic` would make a browser hold the request for its login prompt
    // (a receiver on the page's own origin, or behind the relay); without credentials the 401 comes back.
    const init: RequestInit = { ...given, credentials: 'omit' };
    const method = init.method ?? 'GET';
    if (method === 'GET') return openStream(input, init);
    if (method === 'POST') return post(input, init);
    return base(input, init);
  };
}
