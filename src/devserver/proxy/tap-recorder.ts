/**
 * One exchange's copy as it passes: the request body cut at its cap, the answer decoded (gzip, deflate, br — for
 * the copy only) and read as JSON or event by event. Called by the forwarder for every chunk, so each call is
 * cheap, none throws, and none waits: past a cap, or when the decoder falls behind, the copy drops.
 */
import zlib from 'node:zlib';
import type { RawHeaders } from './headers.js';
import { SseReader, type SseEvent } from './sse-reader.js';
import { redactText } from './tap-redact.js';
import type { TapEvent, TapExchange, TapRecorder, TapSink } from './tap-types.js';

export function headersSize(headers: Array<[string, string]>): number {
  return headers.reduce((sum, [name, value]) => sum + name.length + value.length, 0);
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

export class Recorder implements TapRecorder {
  private requestParts: Buffer[] = [];
  private requestKept = 0;
  private sse = false;
  private reader?: SseReader;
  /** An event stream's text decoder (a character may span two chunks); made only for streams. */
  private text?: TextDecoder;
  private jsonParts: Buffer[] = [];
  private jsonKept = 0;
  private decoder?: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress;
  /** Decoding stopped: a cap, a backlog, an unknown encoding or a broken one. */
  private copying = true;
  private ended = false;

  constructor(
    private readonly tap: TapSink,
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
    // Told even once the ring has let the exchange go: a subscriber keeps its own copy (the page's source).
    this.tap.grow(this.exchange, this.exchange.request.body.length);
    this.tap.emit({ kind: 'request-body', exchange: this.exchange });
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
    if (this.sse) {
      this.text = new TextDecoder('utf-8');
      this.reader = new SseReader((event) => this.onEvent(event), this.tap.limits.maxBodyBytes);
    }
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
    // Set before the body is finished: its messages are timed at the answer's end (seen-messages.ts).
    this.exchange.end = how;
    this.exchange.endedAt = this.tap.now();
    if (error !== undefined) this.exchange.error = redactText(error, this.secrets);
    if (this.decoder && this.copying) this.decoder.end();
    else this.finishBody();
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
      this.reader?.push(this.text?.decode(bytes, { stream: true }) ?? '');
      return;
    }
    const room = this.tap.limits.maxBodyBytes - this.jsonKept;
    const kept = bytes.length > room ? bytes.subarray(0, Math.max(0, room)) : bytes;
    this.jsonParts.push(kept);
    this.jsonKept += kept.length;
    if (kept.length < bytes.length) this.stopCopy();
  }

  /** The JSON body is kept once whole (or cut): redaction reads it as one text. */
  private finishBody(): void {
    if (this.sse || this.exchange.body !== undefined || this.jsonParts.length === 0) return;
    const body = redactText(Buffer.concat(this.jsonParts).toString('utf8'), this.secrets);
    this.jsonParts = [];
    this.exchange.body = body;
    this.tap.grow(this.exchange, body.length);
    this.tap.emit({ kind: 'body', exchange: this.exchange });
  }

  private onEvent(event: SseEvent): void {
    const max = this.tap.limits.maxBodyBytes;
    if (event.data.length > max) this.exchange.truncated = true;
    const data = redactText(event.data.length > max ? event.data.slice(0, max) : event.data, this.secrets);
    const kept: TapEvent = { ...event, data, at: this.tap.now() };
    // A stream the ring has let go (a listen stream open for hours) is still told to subscribers, event by
    // event, but no longer kept on the exchange: nothing accounts for it there.
    if (!this.tap.grow(this.exchange, 0)) {
      this.tap.emit({ kind: 'event', exchange: this.exchange, event: kept });
      return;
    }
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
    this.tap.grow(this.exchange, size);
    this.tap.emit({ kind: 'event', exchange: this.exchange, event: kept });
  }
}
