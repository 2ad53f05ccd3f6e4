/**
 * Upstreams for the proxy's tests: a recording pass-through in front of a real receiver (what the upstream
 * received and sent, byte for byte), and a scripted one whose answers a test drives step by step. Plain
 * node:http, independent of the proxy's own code, and a raw client that decompresses and follows nothing.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '../../src/devserver/http-server';

export interface RecordedExchange {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  status?: number;
  answerHeaders: IncomingHttpHeaders;
  answer: Buffer[];
  /** The request or its answer ended (complete, or closed by either side). */
  done: boolean;
}

/** A pass-through at `/mcp` to `target` that records every exchange as the receiver behind it saw it. */
export async function recordingPassThrough(target: string) {
  const exchanges: RecordedExchange[] = [];
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const exchange: RecordedExchange = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.alloc(0),
      answerHeaders: {},
      answer: [],
      done: false,
    };
    exchanges.push(exchange);
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    const up = http.request({
      host: to.hostname,
      port: to.port,
      path: to.pathname,
      method: req.method,
      headers: { ...req.headers, host: to.host },
    });
    req.pipe(up);
    req.on('end', () => (exchange.body = Buffer.concat(parts)));
    res.on('close', () => {
      exchange.done = true;
      up.destroy();
    });
    up.on('error', () => res.destroy());
    up.on('response', (answer) => {
      exchange.status = answer.statusCode;
      exchange.answerHeaders = answer.headers;
      res.writeHead(answer.statusCode ?? 500, answer.headers);
      res.flushHeaders();
      answer.on('data', (c: Buffer) => exchange.answer.push(c));
      answer.pipe(res);
    });
  });
  const listening = await listenOnLoopback(server, 0);
  return { url: `${listening.url}/mcp`, exchanges, close: listening.close };
}

export interface ScriptedRequest {
  req: IncomingMessage;
  res: ServerResponse;
  body: Buffer;
  /** The client closed the request (or its answer) before the answer ended. */
  closed: boolean;
}

/** An upstream whose every request waits in `requests` for the test to answer it. */
export async function scriptedUpstream() {
  const requests: ScriptedRequest[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const entry: ScriptedRequest = { req, res, body: Buffer.concat(parts), closed: false };
      res.on('close', () => {
        if (!res.writableFinished) entry.closed = true;
      });
      requests.push(entry);
    });
  });
  const listening = await listenOnLoopback(server, 0);
  return { url: `${listening.url}/mcp`, requests, close: listening.close };
}

export interface RawAnswer {
  status: number;
  rawHeaders: string[];
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One request with node:http: any Host, no decompression, no redirect followed. */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      agent: false,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          rawHeaders: res.rawHeaders,
          headers: res.headers,
          body: Buffer.concat(parts),
        }),
      );
    });
    req.end(options.body);
  });
}
