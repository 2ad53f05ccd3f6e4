/**
 * Taskscope's own copy of what passes through the proxy, for the page: per exchange the request, the answer's
 * status and headers, and the answer decoded (JSON whole, event streams event by event as they arrive), with
 * times. Credentials never enter it. Everything here is capped and nothing here can slow forwarding: the
 * forwarder hands chunks over and moves on; past a cap, or when decoding falls behind, the copy drops.
 */
import zlib from 'node:zlib';
import { REDACTED, isSecretHeader, redactUrl } from '../../mcp/redact-headers.js';
import { redactAuthText } from '../../mcp/auth/redact.js';
import { SseReader, type SseEvent } from './sse-reader.js';
import { headerPairs, type RawHeaders } from './headers.js';

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

export type TapNews =
  | { kind: 'request' | 'response' | 'body' | 'end'; exchange: TapExchange }
  | { kind: 'event'; exchange: TapExchange; event: TapEvent };

/** What the forwarder tells the tap of one exchange; every call is cheap and none throws. */
export interface TapRecorder {
  requestChunk(chunk: Buffer): void;
  requestEnd(): void;
  response(status: number, raw: RawHeaders): void;
  answerChunk(chunk: Buffer): void;
  end(how: NonNullable<TapExchange['end']>, error?: string): void;
}

/** Secret strings shorter than this are not searched for in bodies: they would match ordinary text. */
const MIN_SECRET_CHARS = 8;

export class ProxyTap {
  private readonly ring: TapExchange[] = [];
  private readonly sizes = new WeakMap<TapExchange, number>();
  private readonly listeners = new Set<(news: TapNews) => void>();
  private bytes = 0;
  private seq = 0;
  private readonly secrets: string[];
  private readonly secretNames: Set<string>;

  constructor(
    /** The command line's `--header`s: their values are secrets wherever they appear. */
    extraHeaders: ReadonlyArray<{ name: string; value: string }> = [],
    readonly limits: TapLimits = TAP_LIMITS,
    readonly now: () => number = Date.now,
  ) {
    this.secretNames = new Set(extraHeaders.map((h) => h.name.toLowerCase()));
    this.secrets = extraHeaders.flatMap((h) => secretParts(h.value));
  }

  /** The exchanges kept, oldest first. Live objects: read, do not change. */
  entries(): readonly TapExchange[] {
    return this.ring;
  }

  /** Calls `listener` with each change as it happens; returns the unsubscribe. */
  subscribe(listener: (news: TapNews) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The bytes the copy holds now. */
  size(): number {
    return this.bytes;
  }

  begin(proxy: string, method: string, target: string, raw: RawHeaders): TapRecorder {
    const secrets = [...this.secrets];
    const headers = this.redactHeaders(raw, secrets);
    // A query may carry a credential too (?access_token=…): the same rule as the page's URLs.
    if (target.includes('?')) target = redactUrl(`http://proxy${target}`).slice('http://proxy'.length);
    const exchange: TapExchange = {
      seq: ++this.seq,
      proxy,
      startedAt: this.now(),
      request: { method, target, headers, body: '', bodyBytes: 0, bodyTruncated: false },
      events: [],
      answerBytes: 0,
      truncated: false,
      droppedEvents: 0,
    };
    this.ring.push(exchange);
    this.sizes.set(exchange, 0);
    this.grow(exchange, headersSize(headers) + target.length);
    this.emit({ kind: 'request', exchange });
    return new Recorder(this, exchange, secrets);
  }

  /** Header values with their credentials replaced; the secrets found are added to `secrets` for the bodies. */
  redactHeaders(raw: RawHeaders, secrets: string[]): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    for (const [name, value] of headerPairs(raw)) {
      if (isSecretHeader(name) || this.secretNames.has(name.toLowerCase())) {
        secrets.push(...secretParts(value));
        out.push([name, REDACTED]);
      } else out.push([name, value]);
    }
    return out;
  }

  /** @internal Accounts `bytes` more to `exchange`, evicting the oldest exchanges past the caps. */
  grow(exchange: TapExchange, bytes: number): boolean {
    if (!this.sizes.has(exchange)) return false;
    this.sizes.set(exchange, (this.sizes.get(exchange) ?? 0) + bytes);
    this.bytes += bytes;
    while (
      this.ring.length > this.limits.maxExchanges ||
      (this.bytes > this.limits.maxBytes && this.ring.length > 0)
    ) {
      const oldest = this.ring.shift();
      if (!oldest) break;
      this.bytes -= this.sizes.get(oldest) ?? 0;
      this.sizes.delete(oldest);
    }
    return this.sizes.has(exchange);
  }

  /** @internal */
  emit(news: TapNews): void {
    for (const listener of this.listeners) {
      try {
        listener(news);
      } catch (error) {
        // A reader's failure is its own: forwarding and the other readers go on.
        console.error(error);
      }
    }
  }
}

/** A secret value and, for `Scheme token`, the token alone (it may appear in a body without its scheme). */
function secretParts(value: string): string[] {
  const parts = [value, ...value.split(/[\s;,=]+/)].map((p) => p.trim());
  return [...new Set(parts.filter((p) => p.length >= MIN_SECRET_CHARS))];
}

function headersSize(headers: Array<[string, string]>): number {
  return headers.reduce((sum, [name, value]) => sum + name.length + value.length, 0);
}

/** What every OAuth secret field's name holds: text without any of these has none to replace. */
const MAY_HOLD_AUTH_FIELD = /code|_token|secret/;

/** The text with OAuth fields and every known secret replaced. */
function redactText(text: string, secrets: readonly string[]): string {
  let out = MAY_HOLD_AUTH_FIELD.test(text) ? redactAuthText(text) : text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

function decoderFor(encoding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

class Recorder implements TapRecorder {
  private requestParts: Buffer[] = [];
  private requestKept = 0;
  private sse = false;
  private reader?: SseReader;
  private text = new TextDecoder('utf-8');
  private jsonParts: string[] = [];
  private jsonKept = 0;
  private decoder?: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress;
  /** Decoding stopped: a cap, a backlog, an unknown encoding or a broken one. */
  private copying = true;
  private ended = false;

  constructor(
    private readonly tap: ProxyTap,
    private readonly exchange: TapExchange,
    private readonly secrets: string[],
  ) {}

  requestChunk(chunk: Buffer): void {
    const request = this.exchange.request;
    request.bodyBytes += chunk.length;
    const room = this.tap.limits.maxBodyBytes - this.requestKept;
    if (room <= 0) {
      request.bodyTruncated = true;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept.length < chunk.length) request.bodyTruncated = true;
    // Node hands each chunk over for good: kept as it is, not copied.
    this.requestParts.push(kept);
    this.requestKept += kept.length;
  }

  requestEnd(): void {
    const body = Buffer.concat(this.requestParts).toString('utf8');
    this.requestParts = [];
    this.exchange.request.body = redactText(body, this.secrets);
    this.tap.grow(this.exchange, this.exchange.request.body.length);
  }

  response(status: number, raw: RawHeaders): void {
    const headers = this.tap.redactHeaders(raw, this.secrets);
    const find = (name: string) => headers.find(([n]) => n.toLowerCase() === name)?.[1];
    const contentType = (find('content-type') ?? '').replace(/;.*$/s, '').trim().toLowerCase();
    const encoding = find('content-encoding')?.trim().toLowerCase();
    this.exchange.response = { at: this.tap.now(), status, headers, contentType };
    if (encoding && encoding !== 'identity') {
      this.exchange.response.encoding = encoding;
      this.decoder = decoderFor(encoding);
      if (this.decoder) {
        this.decoder.on('data', (decoded: Buffer) => this.decoded(decoded));
        this.decoder.on('error', () => this.stopCopy());
        this.decoder.on('end', () => this.finishBody());
      } else this.stopCopy();
    }
    this.sse = contentType === 'text/event-stream';
    if (this.sse) this.reader = new SseReader((event) => this.onEvent(event), this.tap.limits.maxBodyBytes);
    this.tap.grow(this.exchange, headersSize(headers));
    this.tap.emit({ kind: 'response', exchange: this.exchange });
  }

  answerChunk(chunk: Buffer): void {
    this.exchange.answerBytes += chunk.length;
    if (!this.copying) return;
    if (!this.decoder) {
      this.decoded(chunk);
      return;
    }
    // The decoder runs on its own schedule; a flood it cannot keep up with is dropped from the copy.
    if (this.decoder.writableLength + chunk.length > this.tap.limits.maxDecodeBacklog) {
      this.stopCopy();
      return;
    }
    this.decoder.write(chunk);
  }

  end(how: NonNullable<TapExchange['end']>, error?: string): void {
    if (this.ended) return;
    this.ended = true;
    if (this.decoder && this.copying) this.decoder.end();
    else this.finishBody();
    this.exchange.end = how;
    this.exchange.endedAt = this.tap.now();
    if (error !== undefined) this.exchange.error = redactText(error, this.secrets);
    this.tap.emit({ kind: 'end', exchange: this.exchange });
  }

  private stopCopy(): void {
    if (!this.copying) return;
    this.copying = false;
    this.exchange.truncated = true;
    this.decoder?.removeAllListeners('data');
    this.decoder?.on('error', () => undefined);
    this.decoder?.destroy();
    this.finishBody();
  }

  private decoded(bytes: Buffer): void {
    if (!this.copying) return;
    if (this.sse) {
      this.reader?.push(this.text.decode(bytes, { stream: true }));
      return;
    }
    const room = this.tap.limits.maxBodyBytes - this.jsonKept;
    const kept = bytes.length > room ? bytes.subarray(0, Math.max(0, room)) : bytes;
    this.jsonParts.push(this.text.decode(kept, { stream: true }));
    this.jsonKept += kept.length;
    if (kept.length < bytes.length) this.stopCopy();
  }

  /** The JSON body is kept once whole (or cut): redaction reads it as one text. */
  private finishBody(): void {
    if (this.sse || this.exchange.body !== undefined || this.jsonParts.length === 0) return;
    const body = redactText(this.jsonParts.join('') + this.text.decode(), this.secrets);
    this.jsonParts = [];
    this.exchange.body = body;
    if (this.tap.grow(this.exchange, body.length)) this.tap.emit({ kind: 'body', exchange: this.exchange });
  }

  private onEvent(event: SseEvent): void {
    const max = this.tap.limits.maxBodyBytes;
    if (event.data.length > max) this.exchange.truncated = true;
    const data = redactText(event.data.length > max ? event.data.slice(0, max) : event.data, this.secrets);
    const kept: TapEvent = { ...event, data, at: this.tap.now() };
    const events = this.exchange.events;
    events.push(kept);
    let size = data.length + (event.event?.length ?? 0) + (event.id?.length ?? 0);
    while (events.length > this.tap.limits.maxEvents) {
      const gone = events.shift();
      if (!gone) break;
      size -= gone.data.length + (gone.event?.length ?? 0) + (gone.id?.length ?? 0);
      this.exchange.droppedEvents++;
      this.exchange.truncated = true;
    }
    if (this.tap.grow(this.exchange, size))
      this.tap.emit({ kind: 'event', exchange: this.exchange, event: kept });
  }
}
