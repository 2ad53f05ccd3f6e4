import { EventEmitter, once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDemoReceiver, type DemoReceiver } from '../../src/devserver/demo/receiver';
import { listenOnLoopback, type Listening } from '../../src/devserver/http-server';
import { createRelay, type Relay } from '../../src/devserver/relay/route';
import { vetTarget, type Resolver } from '../../src/devserver/relay/target';
import { startApp, type StartedApp } from '../../src/devserver/start';
import { initializeRequest } from '../helpers/initialize';

const INITIALIZE = initializeRequest('relay-test');
const PING = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' });
const MCP_ACCEPT = 'application/json, text/event-stream';
const HTML_SECRET = 'upstream-html-secret';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface SendOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** node:http rather than fetch: fetch cannot set Host, Origin or Sec-Fetch-Site. */
function send(url: string, { method = 'GET', headers = {}, body }: SendOptions = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function relayErrorOf(answer: Answer, status: number): string {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['x-taskscope-relay-error']).toBe('1');
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const parsed = JSON.parse(answer.body) as {
    jsonrpc: string;
    id: unknown;
    error: { code: number; message: string };
  };
  expect(parsed).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  expect(answer.body).not.toMatch(/\bat [^\n]*\(|node_modules|\/work\//);
  return parsed.error.message;
}

function expectSafeHeaders(answer: Answer): void {
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['content-security-policy']).toBe('sandbox');
  expect(answer.headers['cache-control']).toBe('no-store');
}

/** The `data:` payloads of a text/event-stream body. */
function sseData(body: string): unknown[] {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)) as unknown);
}

interface Hit {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

interface CountingUpstream extends Listening {
  port: number;
  hits: Hit[];
  /** 'cut' (path) when an answer was closed before it ended; 'sse-ended' when /sse finished. */
  events: EventEmitter;
  finishSse: () => void;
  redirectTo: string;
}

const SSE_FIRST = 'event: message\ndata: {"n":1}\n\n';
const SSE_SECOND = 'event: message\ndata: {"n":2}\n\n';

/** A receiver stand-in that counts every request it gets and answers what the attacks need. */
async function startCountingUpstream(): Promise<CountingUpstream> {
  const hits: Hit[] = [];
  const events = new EventEmitter();
  const openSse: ServerResponse[] = [];
  const upstream = {} as CountingUpstream;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://upstream');
    hits.push({ method: req.method ?? '', path: url.pathname, headers: req.headers });
    res.on('close', () => {
      if (!res.writableFinished) events.emit('cut', url.pathname);
    });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      switch (url.pathname) {
        case '/echo': {
          const body = JSON.stringify({
            method: req.method,
            headers: req.headers,
            body: Buffer.concat(chunks).toString(),
          });
          res.writeHead(200, {
            'content-type': 'application/json',
            'set-cookie': 'upstream-session=cookie-secret; Path=/',
            'x-upstream-other': 'should-not-pass',
            'mcp-session-id': 'echo-session',
            'access-control-allow-origin': '*',
          });
          res.end(body);
          break;
        }
        case '/html':
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(`<html><body>${HTML_SECRET}</body></html>`);
          break;
        case '/html-chunked':
          res.writeHead(200, { 'content-type': 'text/html' });
          res.write(`<html><body>${HTML_SECRET}`);
          setImmediate(() => res.end('</body></html>'));
          break;
        case '/no-type':
          res.writeHead(200);
          res.end(HTML_SECRET);
          break;
        case '/html-404':
          res.writeHead(404, { 'content-type': 'text/html' });
          res.end(`<html><body>${HTML_SECRET}</body></html>`);
          break;
        case '/plain-empty':
          // Chunked with nothing in it: the relay must wait for the end to know it is empty.
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end();
          break;
        case '/accepted':
          res.writeHead(202);
          res.end();
          break;
        case '/redirect':
          res.writeHead(302, { location: upstream.redirectTo, 'content-type': 'application/json' });
          res.end('{}');
          break;
        case '/sse':
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          res.write(SSE_FIRST);
          openSse.push(res);
          break;
        case '/huge-declared':
          res.writeHead(200, {
            'content-type': 'application/json',
            'content-length': String(70 * 1024 * 1024),
          });
          res.write('{"pad":"');
          break;
        case '/hold':
          break;
        case '/endless-json': {
          res.writeHead(200, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(64 * 1024, ' ');
          const pump = () => {
            while (!res.destroyed && res.write(chunk));
            if (!res.destroyed) res.once('drain', pump);
          };
          pump();
          break;
        }
        default:
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end('{"error":"no such path"}');
      }
    });
  });
  const listening = await listenOnLoopback(server, 0);
  return Object.assign(upstream, listening, {
    port: Number(new URL(listening.url).port),
    hits,
    events,
    redirectTo: '',
    finishSse: () => {
      for (const res of openSse.splice(0)) {
        if (!res.destroyed) res.end(SSE_SECOND, () => events.emit('sse-ended'));
      }
    },
  });
}

async function makeDist(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'taskscope-relay-dist-'));
  await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>taskscope-relay-index</title>\n');
  return dir;
}

async function closedPort(): Promise<number> {
  const server = http.createServer();
  const { url, close } = await listenOnLoopback(server, 0);
  await close();
  return Number(new URL(url).port);
}

describe('the relay in the npm start server', () => {
  let app: StartedApp;
  let dist: string;
  let ownPort: number;
  let upstream: CountingUpstream;
  let other: CountingUpstream;
  let demo: DemoReceiver;
  let demoServer: Listening;
  /** Paths the start server itself was asked for, to prove a redirect or an own-port target never reached it. */
  const startHits: string[] = [];

  beforeAll(async () => {
    dist = await makeDist();
    app = await startApp({ port: 0, staticDir: dist });
    ownPort = Number(new URL(app.url).port);
    app.server.on('request', (req: http.IncomingMessage) =>
      startHits.push(new URL(req.url ?? '/', app.url).pathname),
    );
    upstream = await startCountingUpstream();
    other = await startCountingUpstream();
    demo = createDemoReceiver();
    const demoApp = express();
    demoApp.use('/mcp', demo.router);
    demoServer = await listenOnLoopback(demoApp, 0);
  });
  afterAll(async () => {
    await app?.close();
    await upstream?.close();
    await other?.close();
    await demo?.close();
    await demoServer?.close();
    if (dist) await rm(dist, { recursive: true, force: true });
  });
  beforeEach(() => {
    upstream.hits.length = 0;
    other.hits.length = 0;
    startHits.length = 0;
    upstream.redirectTo = `${app.url}/relay/token`;
  });

  const relay = (
    target: string | undefined,
    {
      token = app.relayToken,
      method = 'POST',
      headers = {},
      body = method === 'POST' ? PING : undefined,
    }: SendOptions & {
      token?: string | null;
    } = {},
  ) =>
    send(`${app.url}/relay`, {
      method,
      headers: {
        ...(token === null ? {} : { 'X-Taskscope-Relay-Token': token }),
        ...(target === undefined ? {} : { 'X-Taskscope-Target': target }),
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        Accept: MCP_ACCEPT,
        ...headers,
      },
      body,
    });

  describe('the token', () => {
    it('is given to the own page at /relay/token, never cached', async () => {
      expect(app.relayToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const allowed: Record<string, string>[] = [
        { 'X-Taskscope-Token-Request': '1' },
        {
          'X-Taskscope-Token-Request': '1',
          Origin: app.url,
          'Sec-Fetch-Site': 'same-origin',
          'Sec-Fetch-Mode': 'cors',
        },
        {
          'X-Taskscope-Token-Request': '1',
          Host: `localhost:${ownPort}`,
          Origin: `http://localhost:${ownPort}`,
        },
      ];
      for (const headers of allowed) {
        const answer = await send(`${app.url}/relay/token`, { headers });
        expect(answer.status, JSON.stringify(headers)).toBe(200);
        expect(answer.headers['cache-control']).toBe('no-store');
        expect(JSON.parse(answer.body)).toEqual({ token: app.relayToken });
      }
    });

    it('is refused without X-Taskscope-Token-Request, from another origin or a cross-site fetch', async () => {
      const refusals: Record<string, string>[] = [
        {},
        { 'X-Taskscope-Token-Request': 'yes' },
        { 'X-Taskscope-Token-Request': '1', 'Sec-Fetch-Site': 'cross-site' },
        { 'X-Taskscope-Token-Request': '1', 'Sec-Fetch-Site': 'same-site' },
        { 'X-Taskscope-Token-Request': '1', Origin: 'http://evil.example' },
        { 'X-Taskscope-Token-Request': '1', Origin: 'null' },
        // Another loopback port is another origin: any local web page could be there.
        { 'X-Taskscope-Token-Request': '1', Origin: `http://127.0.0.1:${ownPort + 1}` },
        { 'X-Taskscope-Token-Request': '1', Host: 'evil.example' },
        { 'X-Taskscope-Token-Request': '1', Host: 'evil.example', Origin: 'http://evil.example' },
      ];
      for (const headers of refusals) {
        const answer = await send(`${app.url}/relay/token`, { headers });
        expect(answer.status, JSON.stringify(headers)).toBe(403);
        expect(answer.body).not.toContain(app.relayToken);
      }
      const post = await send(`${app.url}/relay/token`, {
        method: 'POST',
        headers: { 'X-Taskscope-Token-Request': '1' },
      });
      expect(post.status).toBe(405);
      expect(post.body).not.toContain(app.relayToken);
    });

    it('is a new random one per start unless given', async () => {
      const second = await startApp({ port: 0, staticDir: dist });
      const fixed = await startApp({ port: 0, staticDir: dist, relayToken: 'fixed-test-token' });
      try {
        expect(second.relayToken).not.toBe(app.relayToken);
        expect(fixed.relayToken).toBe('fixed-test-token');
      } finally {
        await second.close();
        await fixed.close();
      }
    });
  });

  describe('attacks: refused, and the receiver gets nothing', () => {
    afterEach(() => {
      expect(upstream.hits).toEqual([]);
    });

    it('no token, a wrong token, or the token in the query string only: 401', async () => {
      const target = `${upstream.url}/echo`;
      relayErrorOf(await relay(target, { token: null }), 401);
      relayErrorOf(await relay(target, { token: 'x'.repeat(app.relayToken.length) }), 401);
      relayErrorOf(await relay(target, { token: app.relayToken.slice(0, -1) }), 401);
      relayErrorOf(await relay(target, { token: `${app.relayToken}x` }), 401);
      relayErrorOf(await relay(target, { token: '' }), 401);
      for (const query of [`token=${app.relayToken}`, `relayToken=${app.relayToken}`]) {
        const answer = await send(`${app.url}/relay?${query}`, {
          method: 'POST',
          headers: { 'X-Taskscope-Target': target, 'Content-Type': 'application/json' },
          body: PING,
        });
        relayErrorOf(answer, 401);
      }
    });

    it('a foreign Origin or Host: 403, with a valid token', async () => {
      const target = `${upstream.url}/echo`;
      for (const origin of [
        'http://evil.example',
        'null',
        `https://127.0.0.1:${ownPort}`,
        `http://localhost:${ownPort + 1}`,
      ]) {
        const answer = await relay(target, { headers: { Origin: origin } });
        expect(answer.status, origin).toBe(403);
      }
      const host = await relay(target, { headers: { Host: 'evil.example' } });
      expect(host.status).toBe(403);
      const rebound = await relay(target, {
        headers: { Host: `evil.example:${ownPort}`, Origin: `http://evil.example:${ownPort}` },
      });
      expect(rebound.status).toBe(403);
      relayErrorOf(await relay(target, { headers: { 'Sec-Fetch-Site': 'cross-site' } }), 403);
    });

    it('methods other than GET, POST and DELETE: 405', async () => {
      for (const method of ['PUT', 'PATCH', 'OPTIONS']) {
        const answer = await relay(`${upstream.url}/echo`, { method });
        relayErrorOf(answer, 405);
        expect(answer.headers.allow).toBe('GET, POST, DELETE');
      }
    });

    it('a missing or unparseable target, or one with credentials: 400', async () => {
      expect(relayErrorOf(await relay(undefined), 400)).toMatch(/X-Taskscope-Target/);
      relayErrorOf(await relay('/echo'), 400);
      relayErrorOf(await relay('http://'), 400);
      const withCredentials = `http://user:secret@127.0.0.1:${upstream.port}/echo`;
      const message = relayErrorOf(await relay(withCredentials), 400);
      expect(message).toMatch(/credentials/);
      expect(message).not.toContain('secret');
    });

    it('file:, ftp:, data: and javascript: targets: 400', async () => {
      for (const target of [
        'file:///etc/passwd',
        `ftp://127.0.0.1:${upstream.port}/`,
        'data:text/plain,hi',
        'javascript:alert(1)',
      ]) {
        expect(relayErrorOf(await relay(target), 400), target).toMatch(/only to http: and https:/);
      }
    });

    it("Taskscope's own port, under any loopback name: 403, and the start server sees only the relay request", async () => {
      for (const target of [
        `http://127.0.0.1:${ownPort}/relay/token`,
        `http://localhost:${ownPort}/`,
        `http://[::1]:${ownPort}/`,
        `http://0.0.0.0:${ownPort}/`,
        `http://127.1.2.3:${ownPort}/demo/mcp`,
        `http://[::ffff:127.0.0.1]:${ownPort}/relay/token`,
        `http://2130706433:${ownPort}/`,
      ]) {
        const before = startHits.length;
        expect(relayErrorOf(await relay(target), 403), target).toMatch(/Taskscope itself/);
        expect(startHits.slice(before)).toEqual(['/relay']);
      }
    });

    it('link-local and metadata addresses: 403', async () => {
      for (const target of [
        'http://169.254.169.254/latest/meta-data',
        'http://169.254.0.1:8080/mcp',
        'http://[fe80::1]/mcp',
        'http://[::ffff:169.254.169.254]/latest/meta-data',
        'http://[fd00:ec2::254]/latest/meta-data',
      ]) {
        expect(relayErrorOf(await relay(target), 403), target).toMatch(/link-local|metadata/);
      }
    });

    it('a declared 100 MB body: 413 at once, without reading it', async () => {
      const answer = await new Promise<Answer>((resolve, reject) => {
        const req = http.request(`${app.url}/relay`, {
          method: 'POST',
          agent: false,
          headers: {
            'X-Taskscope-Relay-Token': app.relayToken,
            'X-Taskscope-Target': `${upstream.url}/echo`,
            'Content-Type': 'application/json',
            'Content-Length': String(100 * 1024 * 1024),
            Connection: 'keep-alive',
          },
        });
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            resolve({
              status: res.statusCode!,
              headers: res.headers,
              body: Buffer.concat(chunks).toString(),
            });
            req.destroy();
          });
        });
        req.on('error', (error) => reject(error));
        // A trickle: the answer must not wait for the 100 MB announced.
        req.write('{"jsonrpc":"2.0","id":1,"method":"ping","pad":"');
      });
      expect(relayErrorOf(answer, 413)).toMatch(/too large/);
    });

    it('a chunked body past 4 MB: 413, the receiver never contacted', async () => {
      const chunk = Buffer.alloc(256 * 1024, 'a');
      let sent = 0;
      const answer = await new Promise<Answer>((resolve, reject) => {
        let answered = false;
        const req = http.request(`${app.url}/relay`, {
          method: 'POST',
          agent: false,
          headers: {
            'X-Taskscope-Relay-Token': app.relayToken,
            'X-Taskscope-Target': `${upstream.url}/echo`,
            'Content-Type': 'application/json',
            'Transfer-Encoding': 'chunked',
            // As a browser does. With Connection: close the server hangs up right after its answer, and the
            // reset from the unread rest of the body can beat the answer to this client.
            Connection: 'keep-alive',
          },
        });
        req.on('response', (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            resolve({
              status: res.statusCode!,
              headers: res.headers,
              body: Buffer.concat(chunks).toString(),
            });
            req.destroy();
          });
        });
        // Writing on after the answer may hit a closed socket: only an error before it counts.
        req.on('error', (error) => {
          if (!answered) reject(error);
        });
        const pump = () => {
          while (!answered && sent < 100 * 1024 * 1024) {
            sent += chunk.length;
            if (!req.write(chunk)) {
              req.once('drain', pump);
              return;
            }
          }
        };
        pump();
      });
      expect(relayErrorOf(answer, 413)).toMatch(/too large/);
      expect(sent).toBeGreaterThan(4 * 1024 * 1024);
      expect(sent).toBeLessThan(32 * 1024 * 1024);
    });
  });

  describe("the receiver's answer", () => {
    it('an HTML answer: 502, the HTML not passed, with or without a length', async () => {
      for (const pathname of ['/html', '/html-chunked']) {
        const answer = await relay(`${upstream.url}${pathname}`);
        expect(relayErrorOf(answer, 502), pathname).toMatch(/HTTP 200 with text\/html/);
        expect(answer.body).not.toContain(HTML_SECRET);
        expectSafeHeaders(answer);
      }
      const untyped = await relay(`${upstream.url}/no-type`);
      expect(relayErrorOf(untyped, 502)).toMatch(/no Content-Type/);
      expect(untyped.body).not.toContain(HTML_SECRET);
      expect(upstream.hits.map((h) => h.path)).toEqual(['/html', '/html-chunked', '/no-type']);
    });

    it('an error status with a page for a body: the status passes (a lost session, no endpoint), the page does not', async () => {
      const answer = await relay(`${upstream.url}/html-404`);
      expect(answer.status).toBe(404);
      expect(answer.body).toBe('');
      expect(answer.headers['x-taskscope-relay-error']).toBeUndefined();
      expect(answer.headers['content-type']).toBeUndefined();
      expectSafeHeaders(answer);
    });

    it('an empty answer passes whatever its type, without the type', async () => {
      const empty = await relay(`${upstream.url}/plain-empty`);
      expect(empty.status).toBe(200);
      expect(empty.body).toBe('');
      expect(empty.headers['content-type']).toBeUndefined();
      expect(empty.headers['x-taskscope-relay-error']).toBeUndefined();
      const accepted = await relay(`${upstream.url}/accepted`);
      expect(accepted.status).toBe(202);
      expect(accepted.body).toBe('');
      expectSafeHeaders(accepted);
    });

    it('a redirect to loopback: 502 naming the Location, never followed', async () => {
      const answer = await relay(`${upstream.url}/redirect`);
      expect(relayErrorOf(answer, 502)).toBe(
        `The receiver redirected to ${app.url}/relay/token; the relay does not follow redirects`,
      );
      expect(answer.body).not.toContain(app.relayToken);
      expect(startHits).toEqual(['/relay']);

      upstream.redirectTo = `${other.url}/echo?${'x'.repeat(500)}`;
      const elsewhere = await relay(`${upstream.url}/redirect`);
      const message = relayErrorOf(elsewhere, 502);
      expect(message).toContain(`redirected to ${other.url}/echo?xxx`);
      expect(message.length).toBeLessThan(320);
      expect(other.hits).toEqual([]);
    });

    it('an answer declaring more than 64 MB: 502 at once', async () => {
      const answer = await relay(`${upstream.url}/huge-declared`);
      expect(relayErrorOf(answer, 502)).toMatch(/cap/);
    });

    it('a receiver that refuses the connection: 502 saying so', async () => {
      const port = await closedPort();
      const message = relayErrorOf(await relay(`http://127.0.0.1:${port}/mcp?key=query-secret`), 502);
      expect(message).toBe(`The relay could not reach http://127.0.0.1:${port}/mcp: connection refused`);
    });

    it('passes only the allowed headers each way, and the bodies as they are', async () => {
      const answer = await relay(`${upstream.url}/echo?x=1`, {
        headers: {
          Cookie: 'taskscope=page-cookie',
          'X-Other': 'not-forwarded',
          'X-Api-Key': 'key-123',
          Authorization: 'Bearer not-named',
          Referer: `${app.url}/`,
          Origin: app.url,
          'Sec-Fetch-Site': 'same-origin',
          'Mcp-Session-Id': 'sess-1',
          'Mcp-Protocol-Version': '2025-11-25',
          'Mcp-Method': 'ping',
          'X-Taskscope-Forward':
            'x-api-key, Cookie, host, origin, x-taskscope-relay-token, sec-fetch-site, proxy-authorization, bad name',
        },
      });
      expect(answer.status).toBe(200);
      expectSafeHeaders(answer);
      expect(answer.headers['set-cookie']).toBeUndefined();
      expect(answer.headers['x-upstream-other']).toBeUndefined();
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
      expect(answer.headers['mcp-session-id']).toBe('echo-session');
      expect(answer.headers['x-taskscope-relay-error']).toBeUndefined();

      const echoed = JSON.parse(answer.body) as {
        method: string;
        headers: IncomingHttpHeaders;
        body: string;
      };
      expect(echoed.method).toBe('POST');
      expect(echoed.body).toBe(PING);
      expect(Object.keys(echoed.headers).sort()).toEqual(
        [
          'accept',
          'connection',
          'content-length',
          'content-type',
          'host',
          'mcp-method',
          'mcp-protocol-version',
          'mcp-session-id',
          'x-api-key',
        ].sort(),
      );
      expect(echoed.headers).toMatchObject({
        host: `127.0.0.1:${upstream.port}`,
        'x-api-key': 'key-123',
        'mcp-session-id': 'sess-1',
        accept: MCP_ACCEPT,
        'content-length': String(PING.length),
      });
      expect(upstream.hits.map((h) => `${h.method} ${h.path}`)).toEqual(['POST /echo']);
    });

    it("streams an event stream: the first event arrives before the receiver's stream ends", async () => {
      const req = http.request(`${app.url}/relay`, {
        method: 'GET',
        agent: false,
        headers: {
          'X-Taskscope-Relay-Token': app.relayToken,
          'X-Taskscope-Target': `${upstream.url}/sse`,
          Accept: 'text/event-stream',
          'Last-Event-Id': 'ev-9',
        },
      });
      req.end();
      const [res] = (await once(req, 'response')) as [http.IncomingMessage];
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/event-stream');
      expect(res.headers['content-length']).toBeUndefined();
      expect(res.headers['content-security-policy']).toBe('sandbox');
      res.setEncoding('utf8');
      let received = '';
      let ended = false;
      let firstAlone = false;
      upstream.events.once('sse-ended', () => (ended = true));
      // A relay that buffers would hold the first event until the end: end it anyway, so the test fails, not hangs.
      const fallback = setTimeout(() => upstream.finishSse(), 2000);
      for await (const chunk of res as AsyncIterable<string>) {
        received += chunk;
        if (received === SSE_FIRST && !ended) {
          firstAlone = true;
          upstream.finishSse();
        }
      }
      clearTimeout(fallback);
      expect(firstAlone).toBe(true);
      expect(received).toBe(SSE_FIRST + SSE_SECOND);
      expect(ended).toBe(true);
      expect(upstream.hits[0]!.headers['last-event-id']).toBe('ev-9');
    });

    it("closes the receiver's side when the page aborts", async () => {
      const controller = new AbortController();
      const cut = once(upstream.events, 'cut') as Promise<[string]>;
      const req = http.request(`${app.url}/relay`, {
        method: 'GET',
        agent: false,
        signal: controller.signal,
        headers: {
          'X-Taskscope-Relay-Token': app.relayToken,
          'X-Taskscope-Target': `${upstream.url}/sse`,
          Accept: 'text/event-stream',
        },
      });
      req.on('error', () => undefined);
      req.end();
      const [res] = (await once(req, 'response')) as [http.IncomingMessage];
      await once(res, 'data');
      controller.abort();
      expect(await cut).toEqual(['/sse']);
    });
  });

  describe('the page and the demo receiver', () => {
    it('serves / and deep links with Cache-Control no-store, refuses a foreign Origin or Host', async () => {
      for (const pathname of ['/', '/?task=abc', '/index.html']) {
        const page = await send(`${app.url}${pathname}`);
        expect(page.status, pathname).toBe(200);
        expect(page.body).toContain('taskscope-relay-index');
        expect(page.headers['cache-control'], pathname).toBe('no-store');
        // Never framed: a framing page could steer clicks onto the relay's confirmation.
        expect(page.headers['x-frame-options'], pathname).toBe('DENY');
        expect(page.headers['content-security-policy'], pathname).toBe("frame-ancestors 'none'");
      }
      const own = await send(`${app.url}/`, { headers: { Origin: app.url } });
      expect(own.status).toBe(200);
      const foreign: Record<string, string>[] = [
        { Origin: 'http://evil.example' },
        { Host: 'evil.example' },
        { Origin: 'null' },
      ];
      for (const headers of foreign) {
        const page = await send(`${app.url}/`, { headers });
        expect(page.status, JSON.stringify(headers)).toBe(403);
        expect(page.body).not.toContain('taskscope-relay-index');
      }
    });

    it('leaves /demo/mcp its own Origin policy (loopback origins allowed, JSON-RPC refusals)', async () => {
      const init = (origin: string) =>
        send(`${app.url}/demo/mcp`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT, Origin: origin },
          body: JSON.stringify(INITIALIZE),
        });
      const loopback = await init('http://localhost:3000');
      expect(loopback.status).toBe(200);
      const foreign = await init('http://evil.example');
      expect(foreign.status).toBe(403);
      expect(JSON.parse(foreign.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    });

    it('relays a whole session to the real demo receiver: initialize, tools/list, DELETE', async () => {
      const target = `${demoServer.url}/mcp`;
      const headers = { Origin: app.url, 'Sec-Fetch-Site': 'same-origin' };
      const init = await relay(target, { headers, body: JSON.stringify(INITIALIZE) });
      expect(init.status, init.body).toBe(200);
      expectSafeHeaders(init);
      const sessionId = init.headers['mcp-session-id'] as string;
      expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(sseData(init.body)).toMatchObject([
        { jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'taskscope-demo' } } },
      ]);

      const session = { ...headers, 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': '2025-11-25' };
      const initialized = await relay(target, {
        headers: session,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
      expect(initialized.status).toBe(202);
      expect(initialized.body).toBe('');

      const list = await relay(target, {
        headers: session,
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      expect(list.status).toBe(200);
      const [listed] = sseData(list.body) as [{ id: number; result: { tools: { name: string }[] } }];
      expect(listed.id).toBe(2);
      expect(listed.result.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['slow_job', 'echo']));

      expect(demo.sessionCount()).toBe(1);
      const closed = await relay(target, { method: 'DELETE', headers: session });
      expect(closed.status).toBe(200);
      expect(demo.sessionCount()).toBe(0);
      const gone = await relay(target, {
        headers: session,
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
      });
      expect(gone.status).toBe(404);
      expect(gone.headers['x-taskscope-relay-error']).toBeUndefined();
    });
  });
});

describe('the relay on its own: DNS pinning, resolution and timeouts', () => {
  let upstream: CountingUpstream;
  let relayServer: Listening | undefined;
  let relay: Relay | undefined;
  const TOKEN = 'test-token';

  beforeAll(async () => {
    upstream = await startCountingUpstream();
  });
  afterAll(async () => {
    await upstream?.close();
  });
  afterEach(async () => {
    relay?.close();
    await relayServer?.close();
    relay = undefined;
    relayServer = undefined;
    upstream.hits.length = 0;
  });

  async function startRelay(
    resolve: Resolver,
    limits: { headersTimeoutMs?: number; answerLimitBytes?: number } = {},
  ): Promise<string> {
    relay = createRelay({ token: TOKEN, ownPort: () => undefined, resolve, ...limits });
    const app = express();
    app.use(relay.handler);
    relayServer = await listenOnLoopback(app, 0);
    return `${relayServer.url}/relay`;
  }

  const post = (url: string, target: string) =>
    send(url, {
      method: 'POST',
      headers: {
        'X-Taskscope-Relay-Token': TOKEN,
        'X-Taskscope-Target': target,
        'Content-Type': 'application/json',
      },
      body: PING,
    });

  it('connects to the address it vetted, not to a second answer from DNS', async () => {
    const asked: string[] = [];
    const url = await startRelay(async (hostname) => {
      asked.push(hostname);
      // A rebinding name: harmless when checked, the metadata service when asked again.
      return asked.length === 1
        ? [{ address: '127.0.0.1', family: 4 }]
        : [{ address: '169.254.169.254', family: 4 }];
    });
    const answer = await post(url, `http://rebind.test:${upstream.port}/echo`);
    expect(answer.status, answer.body).toBe(200);
    expect(asked).toEqual(['rebind.test']);
    expect(upstream.hits).toHaveLength(1);
    expect(upstream.hits[0]!.headers.host).toBe(`rebind.test:${upstream.port}`);
  });

  it('refuses a name if any of its addresses is link-local', async () => {
    const url = await startRelay(async () => [
      { address: '127.0.0.1', family: 4 },
      { address: 'fe80::1%eth0', family: 6 },
    ]);
    relayErrorOf(await post(url, `http://mixed.test:${upstream.port}/echo`), 403);
    expect(upstream.hits).toEqual([]);
  });

  it('says so when the name does not resolve', async () => {
    const url = await startRelay(async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    });
    expect(relayErrorOf(await post(url, 'http://nowhere.invalid/mcp'), 502)).toBe(
      'The relay could not reach http://nowhere.invalid/mcp: no such host',
    );
  });

  it('gives up on a receiver that sends no headers within the timeout: 504', async () => {
    const url = await startRelay(async () => [{ address: '127.0.0.1', family: 4 }], {
      headersTimeoutMs: 200,
    });
    const cut = once(upstream.events, 'cut');
    const message = relayErrorOf(await post(url, `http://slow.test:${upstream.port}/hold`), 504);
    expect(message).toMatch(/did not answer within/);
    await cut;
  });

  it('cuts an answer that streams past the cap, and the receiver with it', async () => {
    const limit = 1024 * 1024;
    const url = await startRelay(async () => [{ address: '127.0.0.1', family: 4 }], {
      answerLimitBytes: limit,
    });
    const cut = once(upstream.events, 'cut');
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      headers: {
        'X-Taskscope-Relay-Token': TOKEN,
        'X-Taskscope-Target': `http://big.test:${upstream.port}/endless-json`,
        'Content-Type': 'application/json',
      },
    });
    req.end(PING);
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    expect(res.statusCode).toBe(200);
    let received = 0;
    res.on('data', (chunk: Buffer) => (received += chunk.length));
    // The relay hangs up mid-answer: the body breaks off rather than ends.
    // once() would reject on the 'aborted' error this is waiting for.
    res.on('error', () => undefined);
    await new Promise((resolve) => res.once('close', resolve));
    const broke = !res.complete;
    expect(broke).toBe(true);
    expect(received).toBeLessThanOrEqual(limit);
    expect(received).toBeGreaterThan(limit / 2);
    expect(await cut).toEqual(['/endless-json']);
  });

  it('refuses a name with one harmless address and one on Taskscope’s own port', async () => {
    await expect(
      vetTarget(new URL('http://a.test:5173/'), {
        ownPort: 5173,
        resolve: async () => [
          { address: '192.0.2.1', family: 4 },
          { address: '::ffff:127.0.0.1', family: 6 },
        ],
      }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      vetTarget(new URL('http://a.test:5174/'), {
        ownPort: 5173,
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      }),
    ).resolves.toMatchObject({ hostname: 'a.test', port: 5174 });
  });
});
