/**
 * Where a message from a stdio server goes on its way to the page: the answer of the POST that carried a
 * request (an event stream, or one JSON body when the page accepts only JSON), or the page's GET stream.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { SAFE_ANSWER_HEADERS } from '../relay/headers.js';

/** SSE comments so idle proxies and the page's own stream watch keep the stream; as the SDK's servers do. */
export const KEEP_ALIVE_MS = 15_000;

export class Outlet {
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  private started = false;

  constructor(
    private readonly res: ServerResponse,
    readonly mode: 'sse' | 'json',
    private readonly headers: OutgoingHttpHeaders = {},
  ) {
    if (mode === 'sse') this.start();
    res.on('close', () => this.stopKeepAlive());
  }

  get open(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }

  onClose(listener: () => void): void {
    this.res.on('close', listener);
  }

  /** An event on the stream, or the JSON answer (which ends it). False when nothing could be written. */
  send(message: unknown, final = false): boolean {
    if (!this.open) return false;
    const text = JSON.stringify(message);
    if (this.mode === 'json') {
      if (!final) return false;
      this.res.writeHead(200, {
        ...SAFE_ANSWER_HEADERS,
        ...this.headers,
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      });
      this.res.end(text);
      return true;
    }
    this.res.write(`event: message\ndata: ${text}\n\n`);
    if (final) this.end();
    return true;
  }

  end(): void {
    this.stopKeepAlive();
    if (!this.open) return;
    if (!this.started && this.mode === 'json') {
      // Nothing to say any more (the stream it waited on is gone): no body rather than a made-up answer.
      this.res.writeHead(204, { ...SAFE_ANSWER_HEADERS, ...this.headers });
    }
    this.res.end();
  }

  private start(): void {
    this.started = true;
    this.res.writeHead(200, {
      ...SAFE_ANSWER_HEADERS,
      ...this.headers,
      'content-type': 'text/event-stream',
      connection: 'keep-alive',
    });
    this.res.flushHeaders();
    this.keepAlive = setInterval(() => {
      if (this.open) this.res.write(': keep-alive\n\n');
    }, KEEP_ALIVE_MS);
    this.keepAlive.unref();
  }

  private stopKeepAlive(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}
