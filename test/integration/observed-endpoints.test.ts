import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObservedRing } from '../../src/devserver/observed/ring';
import type { ObservedSource } from '../../src/devserver/observed/source';
import { startApp, type StartOptions } from '../../src/devserver/start';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { observedStream, summary } from '../helpers/observed';
import { rawRequest, scriptedUpstream } from '../helpers/proxy-upstreams';
import { makeStubDist } from '../helpers/stub-dist';
import { waitFor } from '../helpers/wait';

/**
 * What the page reads of a proxy's traffic (/observed/sources, /observed/messages): a real client through a
 * real `taskscope proxy` to the demo receiver, its messages numbered and streamed live, behind the relay's checks.
 */
const later = stopAfterEach();
let dist: Awaited<ReturnType<typeof makeStubDist>>;
beforeAll(async () => {
  dist = await makeStubDist();
});
afterAll(async () => {
  await dist.remove();
});

async function app(options: Partial<StartOptions> = {}) {
  const warnings: string[] = [];
  const started = await startApp({
    port: 0,
    staticDir: dist.dir,
    onProxyWarning: (m) => warnings.push(m),
    ...options,
  });
  later(started.close);
  return { started, warnings, token: started.relayToken };
}

const sourcesOf = async (base: string, token: string) => {
  const answer = await rawRequest(`${base}/observed/sources`, {
    headers: { 'X-Taskscope-Relay-Token': token },
  });
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  return (JSON.parse(answer.body.toString()) as { sources: Array<Record<string, string>> }).sources;
};

async function sdkClient(endpoint: string) {
  const client = new Client({ name: 'observed-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
  later(() => client.close());
  return client;
}

describe('/observed/* with taskscope proxy', () => {
  it('lists the proxy and streams what passed, in order, then live; after= resumes', async () => {
    const demo = await demoFor(later);
    const { started, token } = await app({ proxies: [{ name: 'demo', upstream: demo.url }] });
    expect(await sourcesOf(started.url, token)).toEqual([{ name: 'demo', kind: 'http', upstream: demo.url }]);

    const client = await sdkClient(`${started.url}/proxy/demo/mcp`);
    await client.listTools();
    const stream = await observedStream(started.url, { source: 'demo' }, token);
    later(async () => stream.close());
    expect(stream.status).toBe(200);
    const has = (what: string, count = 1) => summary(stream.lines).filter((s) => s === what).length >= count;
    await waitFor(() => has('server result', 2), 5000);
    expect(summary(stream.lines).slice(0, 3)).toEqual([
      'client initialize',
      'server result',
      'client notifications/initialized',
    ]);
    expect(summary(stream.lines)).toContain('client tools/list');

    // Live: sent after the stream opened, it comes on the same stream.
    const before = stream.lines.length;
    await client.listTools();
    await waitFor(() => has('client tools/list', 2) && has('server result', 3), 5000);
    expect(summary(stream.lines.slice(before))).toEqual(['client tools/list', 'server result']);
    const call = stream.lines[before];
    expect(call?.seen).toMatchObject({ from: 'client', headers: { 'content-type': 'application/json' } });
    expect(call?.seen?.sessionId).toEqual(expect.any(String));
    expect(call?.seen?.exchange).toEqual(expect.any(Number));

    // A task flow as it passes: the call, the client's polls, its fetch of the result, and the result.
    for await (const message of client.experimental.tasks.callToolStream({
      name: 'slow_job',
      arguments: { durationMs: 200, steps: 2, pollIntervalMs: 50, label: 'observed' },
    }))
      if (message.type === 'error') throw new Error(String(message.error));
    await waitFor(() => JSON.stringify(stream.lines).includes('Finished observed: 2 steps in 200 ms.'), 5000);
    expect(summary(stream.lines)).toEqual(
      expect.arrayContaining(['client tools/call', 'client tasks/get', 'client tasks/result']),
    );

    const seqs = stream.lines.map((l) => l.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const answer = stream.lines.find((l) => l.seen?.from === 'server');
    expect(answer?.seen).toMatchObject({ httpStatus: 200, responseHeaders: expect.any(Object) });

    // A reader that read up to 2 asks for the rest.
    const resumed = await observedStream(started.url, { source: 'demo', after: 2 }, token);
    later(async () => resumed.close());
    await waitFor(() => resumed.lines.length === stream.lines.length - 2, 5000);
    expect(resumed.lines).toEqual(stream.lines.slice(2));
    expect(stream.ended()).toBe(false);
  });

  it('refuses without the token, with a wrong one, from another origin or host; 404 for an unknown source', async () => {
    const demo = await demoFor(later);
    const { started, token } = await app({ proxies: [{ name: 'demo', upstream: demo.url }] });
    const port = new URL(started.url).port;
    const asks: Array<[string, Record<string, string>, number]> = [
      ['/observed/sources', {}, 403],
      ['/observed/sources', { 'X-Taskscope-Relay-Token': `${token}x` }, 403],
      ['/observed/messages?source=demo', { 'X-Taskscope-Relay-Token': 'wrong' }, 403],
      ['/observed/sources', { 'X-Taskscope-Relay-Token': token, Origin: 'http://evil.example' }, 403],
      [
        '/observed/messages?source=demo',
        { 'X-Taskscope-Relay-Token': token, Origin: 'http://evil.example' },
        403,
      ],
      ['/observed/sources', { 'X-Taskscope-Relay-Token': token, 'Sec-Fetch-Site': 'cross-site' }, 403],
      ['/observed/sources', { 'X-Taskscope-Relay-Token': token, Host: `evil.example:${port}` }, 403],
      ['/observed/messages?source=nope', { 'X-Taskscope-Relay-Token': token }, 404],
      ['/observed/messages?source=demo&after=-1', { 'X-Taskscope-Relay-Token': token }, 400],
    ];
    for (const [path, headers, status] of asks) {
      const answer = await rawRequest(`${started.url}${path}`, { headers });
      expect(answer.status, `${path} ${JSON.stringify(headers)}`).toBe(status);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      const body = JSON.parse(answer.body.toString()) as { error: string };
      expect(body.error).toEqual(expect.any(String));
      expect(answer.body.toString()).not.toMatch(/ at |\.ts:|demo\/mcp/);
    }
    // The page's own origin, with the token, is served.
    const own = await rawRequest(`${started.url}/observed/sources`, {
      headers: { 'X-Taskscope-Relay-Token': token, Origin: started.url, 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(own.status).toBe(200);
  });

  it('lists nothing when Taskscope is not a proxy', async () => {
    const { started, token } = await app();
    expect(await sourcesOf(started.url, token)).toEqual([]);
  });

  it('notes a 401 asking for a Bearer token, once, with the --header way', async () => {
    const upstream = await scriptedUpstream();
    later(upstream.close);
    const { started, token, warnings } = await app({ proxies: [{ name: 'locked', upstream: upstream.url }] });
    const endpoint = `${started.url}/proxy/locked/mcp`;
    const post = () =>
      rawRequest(endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
      });
    expect((await sourcesOf(started.url, token))[0]?.note).toBeUndefined();
    for (let i = 0; i < 2; i++) {
      const answer = post();
      await waitFor(() => upstream.requests.length === i + 1, 5000);
      upstream.requests[i]?.res.writeHead(401, {
        'WWW-Authenticate':
          'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
        'Content-Type': 'application/json',
      });
      upstream.requests[i]?.res.end('{"error":"unauthorized"}');
      expect((await answer).status).toBe(401);
    }
    const [source] = await sourcesOf(started.url, token);
    expect(source?.note).toContain(
      `taskscope proxy ${upstream.url} --header 'Authorization: Bearer \${TOKEN}'`,
    );
    expect(source?.note).toContain('401');
    expect(warnings.filter((w) => w.includes('--header'))).toHaveLength(1);
  });
});

describe('a reader that falls behind', () => {
  it('is cut off rather than buffered without end, and hears of the gap when it comes back', async () => {
    // A source whose ring keeps 40 messages of 64 KiB: far less than the socket can hold unread.
    const ring = new ObservedRing({ maxMessages: 40, maxBytes: 1024 * 1024 * 1024 });
    let readers = 0;
    const source: ObservedSource = {
      name: 'flood',
      kind: 'stdio',
      upstream: 'stdio:flood',
      note: () => undefined,
      after: (seq, limit) => ring.after(seq, limit),
      subscribe: (listener) => {
        readers++;
        const off = ring.subscribe(listener);
        return () => {
          readers--;
          off();
        };
      },
    };
    const { started, token } = await app({ observed: [source] });
    const stream = await observedStream(started.url, { source: 'flood' }, token);
    later(async () => stream.close());
    stream.pause();
    await waitFor(() => readers === 1, 5000);
    const payload = 'x'.repeat(64 * 1024);
    let pushed = 0;
    // 4000 × 64 KiB is 256 MiB: a stream that kept everything for its reader would still be reading.
    while (readers > 0 && pushed < 4000) {
      ring.push({
        at: pushed,
        wallTime: pushed,
        from: 'server',
        message: { jsonrpc: '2.0', method: 'n', params: { payload } },
      });
      pushed++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(readers).toBe(0);
    expect(pushed).toBeLessThan(4000);
    // What reached the socket before the cut is read, then the end.
    stream.resume();
    await waitFor(stream.ended, 5000);
    const lastRead = stream.lines.at(-1)?.seq ?? 0;
    expect(lastRead).toBeLessThan(pushed);

    const back = await observedStream(started.url, { source: 'flood', after: lastRead }, token);
    later(async () => back.close());
    await waitFor(() => back.lines.length > 0, 5000);
    expect(back.lines[0]).toEqual({ dropped: pushed - 40 - lastRead });
    await waitFor(() => back.lines.at(-1)?.seq === pushed, 5000);
  });
});
