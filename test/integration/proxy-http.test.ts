import http from 'node:http';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from '../../src/devserver/start';
import type { ProxyRoute } from '../../src/devserver/proxy/route';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { extTasksSession } from '../helpers/ext-tasks-session';
import { startDemoReceiver2026 } from '../helpers/receiver-2026';
import { startEverything } from '../helpers/receivers';
import { runInProcess } from '../helpers/run-command';
import { makeStubDist } from '../helpers/stub-dist';
import { startCli, startServe } from '../helpers/taskscope-cli';
import { parseTraceText } from '../../src/engine/trace/schema';
import { judgeProxy } from '../../src/cli/proxy/report';
import { seenMessages } from '../../src/devserver/proxy/seen-messages';
import { waitFor } from '../helpers/wait';
import { badClient2025 } from '../helpers/bad-client';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  rawRequest,
  recordingPassThrough,
  scriptedUpstream,
  type RecordedExchange,
} from '../helpers/proxy-upstreams';

/** `taskscope proxy <upstream-url>`: real clients through the proxy to real receivers, bytes compared at both ends. */
const later = stopAfterEach();
let dist: Awaited<ReturnType<typeof makeStubDist>>;
beforeAll(async () => {
  dist = await makeStubDist();
});
afterAll(async () => {
  await dist.remove();
});

async function proxyTo(upstream: string, more: Partial<ProxyRoute> = {}) {
  const warnings: string[] = [];
  const app = await startApp({
    port: 0,
    staticDir: dist.dir,
    proxies: [{ name: 'up', upstream, ...more }],
    onProxyWarning: (m) => warnings.push(m),
  });
  later(app.close);
  return { app, endpoint: `${app.url}/proxy/up/mcp`, warnings };
}

interface ClientExchange {
  method: string;
  body: string;
  sent: Headers;
  status: number;
  received: Headers;
  answer: Promise<Buffer>;
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
    }
  } catch {
    // The client aborted its stream: what came so far is what it got.
  }
  return Buffer.concat(parts);
}

/** fetch as the SDK calls it, keeping a copy of every request body and answer byte the client saw. */
function recordingFetch(log: ClientExchange[]): FetchLike {
  return async (url, init) => {
    const res = await fetch(url, init);
    const entry = {
      method: init?.method ?? 'GET',
      body: typeof init?.body === 'string' ? init.body : '',
      sent: new Headers(init?.headers),
      status: res.status,
      received: res.headers,
    };
    if (!res.body) {
      log.push({ ...entry, answer: Promise.resolve(Buffer.alloc(0)) });
      return res;
    }
    const [mine, theirs] = res.body.tee();
    log.push({ ...entry, answer: collect(mine) });
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host']);

/** Every exchange the client saw is one the upstream saw: same request bytes, same answer bytes, same headers. */
async function expectSameBytes(client: ClientExchange[], upstream: RecordedExchange[]) {
  await waitFor(() => upstream.length === client.length && upstream.every((e) => e.done), 5000);
  const unmatched = [...upstream];
  for (const c of client) {
    const at = unmatched.findIndex((u) => u.method === c.method && u.body.toString('utf8') === c.body);
    expect(at, `${c.method} ${c.body}`).toBeGreaterThanOrEqual(0);
    const [u] = unmatched.splice(at, 1) as [RecordedExchange];
    const got = await c.answer;
    const sent = Buffer.concat(u.answer);
    // A listen stream the client closed may have had bytes in flight; every other answer is whole.
    if (c.method === 'GET') expect(got.equals(sent.subarray(0, got.length))).toBe(true);
    else expect(got.equals(sent), `${c.method} ${c.body}`).toBe(true);
    expect(c.status).toBe(u.status);
    for (const [name, value] of c.sent) if (!HOP.has(name)) expect(u.headers[name], name).toBe(value);
    for (const [name, value] of Object.entries(u.answerHeaders))
      if (!HOP.has(name))
        expect(c.received.get(name), name).toBe(Array.isArray(value) ? value.join(', ') : value);
    expect(c.received.get('content-security-policy')).toBe('sandbox');
  }
}

async function sdkClient(endpoint: string, log: ClientExchange[]) {
  const client = new Client({ name: 'proxy-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { fetch: recordingFetch(log) }));
  return client;
}

describe('the official SDK 1.32 client through the proxy', () => {
  it('runs a task flow on the demo receiver; every byte is what the receiver received and sent', async () => {
    const demo = await demoFor(later);
    const recorder = await recordingPassThrough(demo.url);
    later(recorder.close);
    const { endpoint, app } = await proxyTo(recorder.url);
    const log: ClientExchange[] = [];
    const client = await sdkClient(endpoint, log);
    await client.listTools();
    const seen: string[] = [];
    for await (const message of client.experimental.tasks.callToolStream({
      name: 'slow_job',
      arguments: { durationMs: 300, steps: 2, pollIntervalMs: 100, label: 'proxied' },
    })) {
      seen.push(message.type);
      if (message.type === 'result')
        expect(message.result.content).toEqual([
          { type: 'text', text: 'Finished proxied: 2 steps in 300 ms.' },
        ]);
    }
    expect(seen[0]).toBe('taskCreated');
    expect(seen.at(-1)).toBe('result');
    await client.close();
    await expectSameBytes(log, recorder.exchanges);
    // The tap holds a copy of each exchange, the polls among them.
    const methods = app.proxy?.tap
      .entries()
      .map((e) => (JSON.parse(e.request.body || '{}') as { method?: string }).method);
    expect(methods).toEqual(
      expect.arrayContaining(['initialize', 'tools/call', 'tasks/get', 'tasks/result']),
    );
  });

  it('runs simulate-research-query on server-everything; every byte compared', async () => {
    const everything = await startEverything();
    later(everything.close);
    const recorder = await recordingPassThrough(everything.url);
    later(recorder.close);
    const { endpoint } = await proxyTo(recorder.url);
    const log: ClientExchange[] = [];
    const client = await sdkClient(endpoint, log);
    await client.listTools();
    let text = '';
    for await (const message of client.experimental.tasks.callToolStream({
      name: 'simulate-research-query',
      arguments: { topic: 'tides' },
    }))
      if (message.type === 'result')
        text = (message.result.content as Array<{ text: string }>)[0]?.text ?? '';
    expect(text).toContain('# Research Report: tides');
    await client.close();
    await expectSameBytes(log, recorder.exchanges);
  });
});

describe('other clients through the proxy', () => {
  it('the SDK 2.x client with ext-tasks runs slow_job on the 2026-07-28 demo', async () => {
    const demo = await startDemoReceiver2026();
    later(demo.close);
    const { endpoint, app } = await proxyTo(demo.url);
    const s = await extTasksSession(endpoint, 'demo-2026');
    later(s.close);
    const { outcome } = await (
      await s.tasks.callTool('slow_job', { durationMs: 200, steps: 2, pollIntervalMs: 50 })
    ).settle();
    expect(outcome.status === 'completed' && outcome.result).toMatchObject({
      content: [{ type: 'text', text: 'Finished job: 2 steps in 200 ms.' }],
    });
    const headers = app.proxy?.tap.entries().find((e) => e.request.body.includes('"tasks/get"'))
      ?.request.headers;
    expect(headers?.find(([n]) => n.toLowerCase() === 'mcp-method')?.[1]).toBe('tasks/get');
    // Judged by the client rules on what passed the proxy: a correct client breaks none.
    const run = judgeProxy(seenMessages(app.proxy?.tap.entries() ?? []), { failOn: 'warn' });
    expect(run.clients.map((c) => [c.card.era, c.run.outcome])).toEqual([['2026-07-28', 'pass']]);
    expect(run.clients[0]?.run.rules.find((r) => r.rule.id === 'client-mcp-name')?.rule.verdict).toBe('pass');
  });

  it('a 2026-07-28 client that leaves out Mcp-Name fails client-mcp-name on its first such request', async () => {
    const demo = await startDemoReceiver2026();
    later(demo.close);
    const { endpoint, app } = await proxyTo(demo.url);
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'nameless', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    };
    const post = async (id: number, method: string, params: Record<string, unknown>, name?: string) => {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          ...(name !== undefined ? { 'mcp-name': name } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }),
      });
      const text = await response.text();
      const data = text.startsWith('{')
        ? text
        : (text
            .split('\n')
            .find((l) => l.startsWith('data:'))
            ?.slice(5) ?? '{}');
      return JSON.parse(data) as { result?: { taskId?: string }; error?: { code: number } };
    };
    const created = await post(
      1,
      'tools/call',
      { name: 'slow_job', arguments: { durationMs: 100, steps: 1 } },
      'slow_job',
    );
    const taskId = created.result?.taskId;
    expect(taskId).toBeDefined();
    // The server refuses it too (headers and body disagree), and the rule names the client's fault.
    expect((await post(2, 'tasks/get', { taskId })).error?.code).toBe(-32020);
    const run = judgeProxy(seenMessages(app.proxy?.tap.entries() ?? []), { failOn: 'fail' });
    const rule = run.clients[0]?.run.rules.find((r) => r.rule.id === 'client-mcp-name')?.rule;
    expect(rule).toMatchObject({
      verdict: 'fail',
      firstOffence: { taskId, detail: 'tasks/get without an Mcp-Name header' },
    });
    expect(run.clients[0]?.client.name).toBe('nameless');
  });

  it('taskscope watch runs a task to its result through the proxy', async () => {
    const demo = await demoFor(later);
    const { endpoint } = await proxyTo(demo.url);
    const run = await runInProcess([
      'watch',
      endpoint,
      '--tool',
      'slow_job',
      '--args',
      '{"durationMs": 300, "steps": 2, "pollIntervalMs": 100, "label": "watched"}',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^result:\nFinished watched: 2 steps in 300 ms\.$/m);
  });
});

/** An event stream answer the test writes event by event, read by a client that sees each chunk. */
function openStream(endpoint: string, headers: Record<string, string> = {}) {
  const received: string[] = [];
  const req = http.request(endpoint, {
    method: 'POST',
    agent: false,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
  });
  const answered = new Promise<http.IncomingMessage>((resolve) => req.on('response', resolve));
  req.on('error', () => undefined);
  void answered.then((res) => res.on('data', (c: Buffer) => received.push(c.toString())));
  req.end('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}');
  return { req, answered, received };
}

describe('streaming and closing', () => {
  it('passes each event on as it comes: the client has event 1 before the upstream sends event 2', async () => {
    const upstream = await scriptedUpstream();
    later(upstream.close);
    const { endpoint, app } = await proxyTo(upstream.url);
    const client = openStream(endpoint);
    later(async () => void client.req.destroy());
    await waitFor(() => upstream.requests.length === 1, 5000);
    const { res } = upstream.requests[0]!;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('id: 1\ndata: {"n":1}\n\n');
    await waitFor(() => client.received.join('') === 'id: 1\ndata: {"n":1}\n\n', 5000);
    res.end('id: 2\ndata: {"n":2}\n\n');
    await waitFor(() => client.received.join('').endsWith('data: {"n":2}\n\n'), 5000);
    await waitFor(() => app.proxy?.tap.entries()[0]?.end === 'complete', 5000);
    expect(app.proxy?.tap.entries()[0]?.events.map((e) => e.data)).toEqual(['{"n":1}', '{"n":2}']);
  });

  it('closes the upstream request at once when the client goes mid-stream', async () => {
    const upstream = await scriptedUpstream();
    later(upstream.close);
    const { endpoint, app } = await proxyTo(upstream.url);
    const client = openStream(endpoint);
    await waitFor(() => upstream.requests.length === 1, 5000);
    const held = upstream.requests[0]!;
    held.res.writeHead(200, { 'content-type': 'text/event-stream' });
    held.res.write('data: first\n\n');
    await waitFor(() => client.received.length > 0, 5000);
    client.req.destroy();
    await waitFor(() => held.closed, 5000);
    expect(app.proxy?.tap.entries()[0]?.end).toBe('client-closed');
  });

  it('passes a gzip answer still gzipped, and a redirect as it is, never followed', async () => {
    const upstream = await scriptedUpstream();
    later(upstream.close);
    const { endpoint, app } = await proxyTo(upstream.url);
    const json = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'z'.repeat(500) } });
    const zipped = gzipSync(json);
    const gz = rawRequest(endpoint, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    await waitFor(() => upstream.requests.length === 1, 5000);
    upstream.requests[0]!.res.writeHead(200, {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    upstream.requests[0]!.res.end(zipped);
    const answer = await gz;
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.body.equals(zipped)).toBe(true);
    await waitFor(() => app.proxy?.tap.entries()[0]?.body === json, 5000);

    const moved = rawRequest(endpoint, { method: 'POST', body: '{}' });
    await waitFor(() => upstream.requests.length === 2, 5000);
    upstream.requests[1]!.res.writeHead(307, { location: 'https://elsewhere.example/mcp' }).end();
    const redirect = await moved;
    expect(redirect.status).toBe(307);
    expect(redirect.headers.location).toBe('https://elsewhere.example/mcp');
    expect(upstream.requests).toHaveLength(2);
  });
});

describe('what the proxy answers itself', () => {
  it('frames a chunked body again on the way up: bytes in a DELETE body never reach the upstream as a request of their own', async () => {
    const upstream = await scriptedUpstream();
    later(upstream.close);
    const { endpoint } = await proxyTo(upstream.url);
    const { port } = new URL(endpoint);
    const smuggled = 'GET /admin HTTP/1.1\r\nHost: smuggled\r\n\r\n';
    const socket = net.connect(Number(port), '127.0.0.1');
    later(async () => void socket.destroy());
    socket.write(
      `DELETE /proxy/up/mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${Buffer.byteLength(smuggled).toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`,
    );
    await waitFor(() => upstream.requests.length >= 1, 5000);
    const first = upstream.requests[0]!;
    expect(first.req.method).toBe('DELETE');
    expect(first.body.toString()).toBe(smuggled);
    first.res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    // Had the body gone up bare, the upstream would now be reading `GET /admin` as a second request.
    await new Promise((resolve) => setImmediate(resolve));
    expect(upstream.requests.map((r) => r.req.url)).toEqual(['/mcp']);
  });

  it('502 with the request’s id when the upstream is unreachable', async () => {
    const gone = await scriptedUpstream();
    await gone.close();
    const { endpoint } = await proxyTo(gone.url);
    const answer = await rawRequest(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":"call-7","method":"tools/list"}',
    });
    expect(answer.status).toBe(502);
    expect(answer.body.toString()).toBe(
      `{"jsonrpc":"2.0","id":"call-7","error":{"code":-32603,"message":"Taskscope proxy: ${gone.url} unreachable: connection refused"}}`,
    );
    const noId = await rawRequest(endpoint, {
      method: 'POST',
      body: '{"jsonrpc":"2.0","method":"notifications/x"}',
    });
    expect(JSON.parse(noId.body.toString())).toMatchObject({ id: null, error: { code: -32603 } });
  });

  it('refuses an HTTP+SSE (2024-11-05) upstream, on the answer and on stderr', async () => {
    const upstream = await scriptedUpstream();
    later(upstream.close);
    const { endpoint, warnings } = await proxyTo(upstream.url);
    const get = rawRequest(endpoint, { headers: { accept: 'text/event-stream' } });
    await waitFor(() => upstream.requests.length === 1, 5000);
    const legacy = upstream.requests[0]!;
    legacy.res.writeHead(200, { 'content-type': 'text/event-stream' });
    legacy.res.write('event: endpoint\ndata: /messages?sessionId=1\n\n');
    const answer = await get;
    expect(answer.status).toBe(502);
    expect(answer.body.toString()).not.toContain('/messages');
    const message = (JSON.parse(answer.body.toString()) as { error: { message: string } }).error.message;
    expect(message).toMatch(/speaks HTTP\+SSE \(2024-11-05\).*Streamable HTTP only/);
    expect(warnings).toEqual([message]);
    await waitFor(() => legacy.closed, 5000);
  });

  it('refuses pages, navigations, other sites and other hosts (403 JSON); other paths are 404 JSON, never the page', async () => {
    const upstream = await scriptedUpstream();
    later(upstream.close);
    const { endpoint, app } = await proxyTo(upstream.url);
    const post = (headers: Record<string, string>, url = endpoint) =>
      rawRequest(url, { method: 'POST', headers, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ origin: 'https://evil.example' }, /Origin "https:\/\/evil.example" is not allowed/],
      [{ 'sec-fetch-mode': 'navigate' }, /A browser navigation is not allowed/],
      [{ 'sec-fetch-site': 'cross-site' }, /A cross-site request is not allowed/],
      [{ host: 'evil.example' }, /Host evil.example is not allowed/],
    ];
    for (const [headers, message] of cases) {
      const answer = await post(headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.headers['content-type']).toBe('application/json');
      expect((JSON.parse(answer.body.toString()) as { error: { message: string } }).error.message).toMatch(
        message,
      );
    }
    for (const path of [
      '/proxy/up/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/proxy/up/mcp',
      '/.well-known/oauth-authorization-server',
      '/proxy/other/mcp',
      '/proxy/up/mcp/more',
      '/proxy/',
    ]) {
      const answer = await rawRequest(`${app.url}${path}`);
      expect(answer.status, path).toBe(404);
      expect(answer.headers['content-type'], path).toBe('application/json');
      expect(answer.headers['content-security-policy']).toBe('sandbox');
      expect(answer.headers['x-frame-options']).toBeUndefined();
    }
    // Its own page passes; nothing refused reached the upstream.
    const own = post({ origin: app.url, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' });
    await waitFor(() => upstream.requests.length === 1, 5000);
    upstream.requests[0]!.res.writeHead(200, {
      'content-type': 'application/json',
      'x-frame-options': 'SAMEORIGIN',
    }).end('{}');
    const passed = await own;
    expect(passed.status).toBe(200);
    // The only end-to-end headers it adds: the page's own (X-Frame-Options DENY, its CSP) stay off what it passes.
    const names = passed.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(names.filter((n) => !HOP.has(n))).toEqual([
      'content-type',
      'x-frame-options',
      'date',
      'content-security-policy',
      'x-content-type-options',
    ]);
    expect(passed.headers['x-frame-options']).toBe('SAMEORIGIN');
  });
});

describe('taskscope proxy, the command', () => {
  it('prints the client endpoint and a host config entry; --header replaces the client’s, its ${VAR} from the environment; Host is the upstream’s', async () => {
    const upstream = await scriptedUpstream();
    later(upstream.close);
    const cli = await startCli(
      [
        'proxy',
        upstream.url,
        '--name',
        'scripted',
        '--header',
        'Authorization: Bearer ${PROXY_TEST_TOKEN}',
        '--port',
        '0',
        '--no-open',
      ],
      { env: { PROXY_TEST_TOKEN: 'from-the-env', TASKSCOPE_DIST: dist.dir } },
    );
    later(async () => void (await cli.stop()));
    const endpoint = /^client endpoint: (http:\/\/127\.0\.0\.1:\d+\/proxy\/scripted\/mcp)$/m.exec(
      cli.output(),
    )?.[1];
    expect(endpoint).toBe(`${cli.url}/proxy/scripted/mcp`);
    // The page opens on what this proxy observes.
    expect(cli.output()).toMatch(new RegExp(`^page: ${cli.url}/\\?observe=scripted$`, 'm'));
    expect(cli.output()).toContain(`"url": "${endpoint}"`);
    expect(cli.output()).not.toContain('from-the-env');
    const call = rawRequest(`${endpoint}?x=1`, {
      method: 'POST',
      headers: { authorization: 'Bearer from-the-client', 'mcp-session-id': 's-1' },
      body: '{}',
    });
    await waitFor(() => upstream.requests.length === 1, 5000);
    const { req, res } = upstream.requests[0]!;
    expect(req.headers).toMatchObject({
      host: new URL(upstream.url).host,
      authorization: 'Bearer from-the-env',
      'mcp-session-id': 's-1',
    });
    expect(req.url).toBe('/mcp?x=1');
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    expect((await call).status).toBe(200);
  });

  it('judges each client by the client rules and writes the reports when stopped: exit 1 when a client fails', async () => {
    const demo = await demoFor(later);
    const dir = await mkdtemp(path.join(tmpdir(), 'taskscope-proxy-report-'));
    later(() => rm(dir, { recursive: true, force: true }));
    const json = path.join(dir, 'clients.json');
    const junit = path.join(dir, 'clients.xml');
    const cli = await startCli(
      ['proxy', demo.url, '--name', 'demo', '--port', '0', '--no-open', '--json', json, '--junit', junit],
      { env: { TASKSCOPE_DIST: dist.dir } },
    );
    later(async () => void (await cli.stop()));
    const endpoint = `${cli.url}/proxy/demo/mcp`;
    // A correct client, then one that gets tasks wrong: two sessions, each judged on its own.
    const client = new Client({ name: 'sdk-client', version: '1.32' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    // The SDK augments a call with a task only for a tool it has listed.
    await client.listTools();
    const stream = client.experimental.tasks.callToolStream({
      name: 'slow_job',
      arguments: { durationMs: 300, steps: 1, pollIntervalMs: 200 },
    });
    for await (const message of stream) if (message.type === 'error') throw message.error;
    await client.close();
    const { taskId } = await badClient2025(endpoint);
    const stopped = Date.now();
    const exit = await cli.stop('SIGTERM');
    expect(Date.now() - stopped).toBeLessThan(2000);
    expect(exit.code).toBe(1);
    const report = JSON.parse(await readFile(json, 'utf8')) as {
      version: number;
      outcome: string;
      clients: Array<{
        name: string;
        outcome: string;
        rules: Array<{ id: string; side: string; verdict: string; firstOffence: { taskId?: string } | null }>;
      }>;
    };
    expect(report).toMatchObject({ version: 2, outcome: 'fail' });
    expect(report.clients.map((c) => [c.name, c.outcome])).toEqual([
      ['sdk-client', 'pass'],
      ['bad', 'fail'],
    ]);
    const bad = report.clients[1]?.rules.find((r) => r.id === 'client-discards-unknown-task');
    expect(bad).toMatchObject({ side: 'client', verdict: 'fail', firstOffence: { taskId } });
    expect(await readFile(junit, 'utf8')).toMatch(
      /<testsuite name="taskscope proxy: bad 1" tests="\d+" failures="1"/,
    );
  });

  it('--trace writes each client session as a trace: it parses, and served it answers the SDK client as the server did', async () => {
    const demo = await demoFor(later);
    const dir = await mkdtemp(path.join(tmpdir(), 'taskscope-proxy-trace-'));
    later(() => rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'observed.json');
    const cli = await startCli(
      ['proxy', demo.url, '--name', 'demo', '--port', '0', '--no-open', '--trace', file],
      { env: { TASKSCOPE_DIST: dist.dir } },
    );
    later(async () => void (await cli.stop()));
    const run = async (url: string) => {
      const client = new Client({ name: 'traced', version: '1' }, { capabilities: {} });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        await client.listTools();
        const statuses: string[] = [];
        let text: string | undefined;
        const stream = client.experimental.tasks.callToolStream({
          name: 'slow_job',
          arguments: { durationMs: 400, steps: 2, pollIntervalMs: 100, label: 'traced' },
        });
        for await (const message of stream) {
          if (message.type === 'taskCreated' || message.type === 'taskStatus')
            if (statuses.at(-1) !== message.task.status) statuses.push(message.task.status);
          if (message.type === 'result')
            text = (message.result.content as Array<{ text?: string }> | undefined)?.[0]?.text;
          if (message.type === 'error') throw message.error;
        }
        return { statuses, text };
      } finally {
        await client.close();
      }
    };
    const live = await run(`${cli.url}/proxy/demo/mcp`);
    expect(live.text).toContain('traced');
    expect((await cli.stop('SIGTERM')).code).toBe(0);

    const parsed = parseTraceText(await readFile(file, 'utf8'));
    expect(parsed.ok).toBe(true);
    const trace = parsed.ok ? parsed.trace : undefined;
    expect(trace?.receiver.era).toBe('2025-11-25');
    expect(trace?.tools.map((t) => t.name)).toContain('slow_job');
    expect(trace?.tasks).toHaveLength(1);
    expect(trace?.tasks[0]).toMatchObject({ tool: 'slow_job', status: 'completed', lifecycle: 'terminal' });

    const served = await startServe([file, '--port', '0', '--speed', '4']);
    later(async () => void (await served.stop()));
    const replayed = await run(served.url);
    expect(replayed.statuses.at(-1)).toBe('completed');
    expect(replayed.statuses).toEqual(live.statuses);
    expect(replayed.text).toBe(live.text);
  });

  it('exits 2 when a --header names an environment variable that is not set', async () => {
    const run = await runInProcess([
      'proxy',
      'http://127.0.0.1:1/mcp',
      '--header',
      'Authorization: Bearer ${PROXY_TEST_UNSET}',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('the environment variable PROXY_TEST_UNSET is not set');
  });
});
