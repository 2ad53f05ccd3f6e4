/**
 * The shape of Taskscope's copy of the proxy's traffic (the tap, tap.ts), and its caps: what the page will read
 * of each exchange.
 */
import type { SseEvent } from './sse-reader.js';
import type { RawHeaders } from './headers.js';

export interface TapLimits {
  /** Exchanges kept; the oldest go first. */
  maxExchanges: number;
  /** Bytes kept over all exchanges (bodies, events, headers); the oldest exchanges go first. */
  maxBytes: number;
  /** A request body, a JSON answer, or one event's data, kept up to this many bytes. */
  maxBodyBytes: number;
  /** The events one stream keeps, its latest. */
  maxEvents: number;
  /** Compressed bytes waiting for the decoder past which the copy gives up on that answer. */
  maxDecodeBacklog: number;
}

export const TAP_LIMITS: TapLimits = {
  maxExchanges: 2000,
  maxBytes: 64 * 1024 * 1024,
  maxBodyBytes: 1024 * 1024,
  maxEvents: 5000,
  maxDecodeBacklog: 4 * 1024 * 1024,
};

export interface TapEvent extends SseEvent {
  /** When it was read, ms since the epoch. */
  at: number;
}

export interface TapExchange {
  /** Increases by one per exchange, for the life of the tap. */
  seq: number;
  /** The proxy's NAME (`/proxy/NAME/mcp`). */
  proxy: string;
  startedAt: number;
  request: {
    method: string;
    /** The path and query the client asked for, on the proxy. */
    target: string;
    headers: Array<[string, string]>;
    /** UTF-8 text, secrets replaced, cut at maxBodyBytes. */
    body: string;
    bodyBytes: number;
    bodyTruncated: boolean;
  };
  response?: {
    at: number;
    status: number;
    headers: Array<[string, string]>;
    contentType: string;
    /** The Content-Encoding the answer came in (it was passed on so; the copy is decoded). */
    encoding?: string;
  };
  /** The decoded answer when it is not an event stream, secrets replaced, cut at maxBodyBytes. */
  body?: string;
  /** An event stream's events as they came (its latest maxEvents). */
  events: TapEvent[];
  /** Answer bytes forwarded, as on the wire. */
  answerBytes: number;
  /** Something of this exchange was left out of the copy (a cap, a decoder that fell behind or failed). */
  truncated: boolean;
  /** Events left out (a stream past maxEvents, an event past maxBodyBytes). */
  droppedEvents: number;
  endedAt?: number;
  /** complete: the answer ended; client-closed: the client went first (the upstream was closed); failed. */
  end?: 'complete' | 'client-closed' | 'failed';
  /** Why it failed, in words (no secrets). */
  error?: string;
}

/**
 * request: an exchange began (headers only); request-body: the client's body is whole; response: the answer's
 * status and headers; body: a JSON answer's body is whole; event: one event of a streamed answer; end.
 */
export type TapNews =
  | { kind: 'request' | 'request-body' | 'response' | 'body' | 'end'; exchange: TapExchange }
  | { kind: 'event'; exchange: TapExchange; event: TapEvent };

/** What the forwarder tells the tap of one exchange; every call is cheap and none throws. */
export interface TapRecorder {
  requestChunk(chunk: Buffer): void;
  requestEnd(): void;
  response(status: number, raw: RawHeaders): void;
  answerChunk(chunk: Buffer): void;
  end(how: NonNullable<TapExchange['end']>, error?: string): void;
}

/** What a recorder needs of the tap that holds its exchange. */
export interface TapSink {
  readonly limits: TapLimits;
  now(): number;
  /** Counts `bytes` more to `exchange`; false once the exchange has been dropped from the ring. */
  grow(exchange: TapExchange, bytes: number): boolean;
  emit(news: TapNews): void;
  /** Header values with their credentials replaced; the secrets found are added to `secrets`. */
  redactHeaders(raw: RawHeaders, secrets: string[]): Array<[string, string]>;
}
