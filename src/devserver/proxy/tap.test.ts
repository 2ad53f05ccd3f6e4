import { randomBytes } from 'node:crypto';
import { gzipSync, brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ProxyTap, TAP_LIMITS, type TapLimits, type TapNews } from './tap';

const limits = (over: Partial<TapLimits> = {}): TapLimits => ({ ...TAP_LIMITS, ...over });
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const ended = (tap: ProxyTap) =>
  new Promise<void>((resolve) => {
    const off = tap.subscribe((news) => {
      if (news.kind === 'end') {
        off();
        resolve();
      }
    });
  });

describe('the proxy’s tap', () => {
  it('keeps no credential: Authorization, cookies, --header values, secret-named headers, token fields', async () => {
    const tap = new ProxyTap([{ name: 'X-Upstream-Org', value: 'org-secret-42' }]);
    const exchange = tap.begin('up', 'POST', '/proxy/up/mcp?access_token=query-secret-9&x=1', [
      'Authorization', 'Bearer client-token-123',
      'Cookie', 'sid=cookie-value-1',
      'X-Upstream-Org', 'org-secret-42',
      'X-Api-Key', 'k-0123456789',
      'Mcp-Session-Id', 'session-1',
    ]); // prettier-ignore
    exchange.requestChunk(
      json({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { note: 'client-token-123 and org-secret-42' },
      }),
    );
    exchange.requestEnd();
    exchange.response(200, ['Content-Type', 'application/json', 'Set-Cookie', 'sid=new-cookie-2']);
    exchange.answerChunk(json({ result: { access_token: 'at-abcdefgh', refresh_token: 'rt-abcdefgh' } }));
    exchange.end('complete');

    const [kept] = tap.entries();
    expect(kept?.request.target).toBe('/proxy/up/mcp?access_token=%5Bredacted%5D&x=1');
    expect(kept?.request.headers).toEqual([
      ['Authorization', '[redacted]'],
      ['Cookie', '[redacted]'],
      ['X-Upstream-Org', '[redacted]'],
      ['X-Api-Key', '[redacted]'],
      ['Mcp-Session-Id', 'session-1'],
    ]);
    expect(kept?.request.body).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"note":"[redacted] and [redacted]"}}',
    );
    expect(kept?.response?.headers).toEqual([
      ['Content-Type', 'application/json'],
      ['Set-Cookie', '[redacted]'],
    ]);
    expect(kept?.body).toBe('{"result":{"access_token":"[redacted]","refresh_token":"[redacted]"}}');
    expect(JSON.stringify(tap.entries())).not.toMatch(
      /client-token-123|cookie-value|org-secret|at-abc|rt-abc|new-cookie/,
    );
  });

  it('reads an event stream event by event across chunk boundaries, as it comes, secrets replaced', () => {
    const tap = new ProxyTap([{ name: 'Authorization', value: 'Bearer upstream-secret' }]);
    const news: TapNews[] = [];
    tap.subscribe((n) => news.push(n));
    const exchange = tap.begin('up', 'POST', '/proxy/up/mcp?access_token=query-secret-9&x=1', []);
    exchange.requestEnd();
    exchange.response(200, ['Content-Type', 'text/event-stream; charset=utf-8']);
    exchange.answerChunk(Buffer.from('id: 1\r\nevent: message\r\ndata: {"a":'));
    expect(news.filter((n) => n.kind === 'event')).toHaveLength(0);
    exchange.answerChunk(Buffer.from('1}\r\n\r\n: keep-alive\n\ndata: upstream-secret\n'));
    expect(news.filter((n) => n.kind === 'event').map((n) => n.kind === 'event' && n.event.data)).toEqual([
      '{"a":1}',
    ]);
    exchange.answerChunk(Buffer.from('\n'));
    exchange.end('complete');
    expect(tap.entries()[0]?.events.map(({ event, id, data }) => ({ event, id, data }))).toEqual([
      { event: 'message', id: '1', data: '{"a":1}' },
      { event: undefined, id: undefined, data: '[redacted]' },
    ]);
  });

  it('decodes gzip and br answers for its copy only, counting the bytes as they came', async () => {
    const tap = new ProxyTap();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(2000) } });
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(body)],
      ['br', brotliCompressSync(body)],
    ] as const) {
      const exchange = tap.begin('up', 'POST', '/proxy/up/mcp?access_token=query-secret-9&x=1', []);
      exchange.requestEnd();
      exchange.response(200, ['Content-Type', 'application/json', 'Content-Encoding', encoding]);
      const done = ended(tap);
      exchange.answerChunk(bytes.subarray(0, 10));
      exchange.answerChunk(bytes.subarray(10));
      exchange.end('complete');
      await done;
      await new Promise((r) => setImmediate(r));
      const kept = tap.entries().at(-1);
      expect(kept?.response?.encoding).toBe(encoding);
      expect(kept?.answerBytes).toBe(bytes.length);
      await expect.poll(() => kept?.body).toBe(body);
    }
  });

  it('caps a request body, a JSON answer and a stream’s events, saying so', () => {
    const tap = new ProxyTap([], limits({ maxBodyBytes: 10, maxEvents: 2 }));
    const exchange = tap.begin('up', 'POST', '/proxy/up/mcp?access_token=query-secret-9&x=1', []);
    exchange.requestChunk(Buffer.from('0123456'));
    exchange.requestChunk(Buffer.from('789abcdef'));
    exchange.requestEnd();
    exchange.response(200, ['Content-Type', 'application/json']);
    exchange.answerChunk(Buffer.from('{"result":"long"}'));
    exchange.end('complete');
    const [kept] = tap.entries();
    expect(kept?.request).toMatchObject({ body: '0123456789', bodyBytes: 16, bodyTruncated: true });
    expect(kept).toMatchObject({ body: '{"result":', answerBytes: 17, truncated: true });

    const stream = tap.begin('up', 'GET', '/proxy/up/mcp', []);
    stream.requestEnd();
    stream.response(200, ['Content-Type', 'text/event-stream']);
    for (let i = 1; i <= 5; i++) stream.answerChunk(Buffer.from(`data: ${i}\n\n`));
    const last = tap.entries()[1];
    expect(last?.events.map((e) => e.data)).toEqual(['4', '5']);
    expect(last).toMatchObject({ droppedEvents: 3, truncated: true });
  });

  it('keeps the latest exchanges within its count and byte caps', () => {
    const tap = new ProxyTap([], limits({ maxExchanges: 3, maxBytes: 1000 }));
    const exchange = (body: string) => {
      const recorder = tap.begin('up', 'POST', '/p', []);
      recorder.requestChunk(Buffer.from(body));
      recorder.requestEnd();
      recorder.end('complete');
    };
    for (let i = 1; i <= 5; i++) exchange(`small ${i}`);
    expect(tap.entries().map((e) => e.request.body)).toEqual(['small 3', 'small 4', 'small 5']);
    exchange('x'.repeat(990));
    expect(tap.entries().map((e) => e.request.body.slice(0, 7))).toEqual(['xxxxxxx']);
    expect(tap.size()).toBeLessThanOrEqual(1000);
  });

  it('gives up its copy of an answer the decoder cannot keep up with, never holding the forwarder', () => {
    const tap = new ProxyTap([], limits({ maxDecodeBacklog: 64 }));
    const exchange = tap.begin('up', 'POST', '/proxy/up/mcp?access_token=query-secret-9&x=1', []);
    exchange.requestEnd();
    exchange.response(200, ['Content-Type', 'application/json', 'Content-Encoding', 'gzip']);
    const bytes = gzipSync(randomBytes(10_000));
    // Written in one tick: the decoder has run none of it yet.
    for (let i = 0; i < bytes.length; i += 16) exchange.answerChunk(bytes.subarray(i, i + 16));
    exchange.end('complete');
    expect(tap.entries()[0]).toMatchObject({ truncated: true, answerBytes: bytes.length });
  });

  it('a subscriber that throws harms neither the tap nor the others', () => {
    const tap = new ProxyTap();
    const seen: string[] = [];
    const errors: unknown[] = [];
    const log = console.error;
    console.error = (e: unknown) => errors.push(e);
    try {
      tap.subscribe(() => {
        throw new Error('reader bug');
      });
      tap.subscribe((n) => seen.push(n.kind));
      const exchange = tap.begin('up', 'DELETE', '/proxy/up/mcp', []);
      exchange.end('client-closed');
    } finally {
      console.error = log;
    }
    expect(seen).toEqual(['request', 'end']);
    expect(errors).toHaveLength(2);
    expect(tap.entries()[0]?.end).toBe('client-closed');
  });
});

describe('what the tap redacts, and what it leaves', () => {
  it('a cookie’s name and a protocol header given on the command line stay; their values are not blanked in bodies', () => {
    const tap = new ProxyTap([{ name: 'MCP-Protocol-Version', value: '2026-07-28' }]);
    const exchange = tap.begin('up', 'POST', '/proxy/up/mcp', [
      'Cookie',
      'sessionidentifier=cookie-value-77',
    ]);
    exchange.requestChunk(
      Buffer.from(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tasks/get',
          params: { note: 'sessionidentifier cookie-value-77', _meta: { v: '2026-07-28' } },
        }),
      ),
    );
    exchange.requestEnd();
    const [kept] = tap.entries();
    expect(kept?.request.body).toContain('"v":"2026-07-28"');
    expect(kept?.request.body).toContain('sessionidentifier [redacted]');
  });
});
