import { describe, expect, it } from 'vitest';
import { ProxyTap } from '../proxy/tap';
import { httpSource } from './http-source';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
/** The source reads the tap's news a turn of the event loop later, off the forwarding path. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("an HTTP proxy's observed source", () => {
  it('numbers each message as it becomes known: the request once whole, each event as it comes', async () => {
    const tap = new ProxyTap();
    const source = httpSource({ tap, name: 'up', upstream: 'http://up.example/mcp' });
    const told: number[] = [];
    source.subscribe((m) => told.push(m.seq));
    const exchange = tap.begin('up', 'POST', '/proxy/up/mcp', ['Mcp-Session-Id', 's-1']);
    exchange.requestChunk(json({ jsonrpc: '2.0', id: 1, method: 'tasks/result', params: { taskId: 't' } }));
    await turn();
    expect(source.after(0)).toEqual([]);
    exchange.requestEnd();
    expect(source.after(0)).toEqual([]);
    await turn();
    expect(source.after(0).map((m) => [m.seq, m.seen.from])).toEqual([[1, 'client']]);
    exchange.response(200, ['Content-Type', 'text/event-stream']);
    exchange.answerChunk(Buffer.from('data: {"jsonrpc":"2.0","method":"notifications/tasks/status"}\n\n'));
    await turn();
    expect(source.after(1)).toEqual([
      {
        seq: 2,
        seen: expect.objectContaining({ from: 'server', httpStatus: 200, sessionId: 's-1', exchange: 1 }),
      },
    ]);
    exchange.answerChunk(Buffer.from('data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'));
    exchange.end('complete');
    // Another proxy's traffic is not this source's.
    const other = tap.begin('other', 'POST', '/proxy/other/mcp', []);
    other.requestChunk(json({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    other.requestEnd();
    await turn();
    expect(told).toEqual([1, 2, 3]);
    expect(source.after(0, 2).map((m) => m.seq)).toEqual([1, 2]);
  });

  it('a JSON answer is numbered once its body is whole, timed at its end', async () => {
    let now = 100;
    const tap = new ProxyTap([], undefined, () => now);
    const source = httpSource({ tap, name: 'up', upstream: 'http://up.example/mcp' });
    const exchange = tap.begin('up', 'POST', '/proxy/up/mcp', []);
    exchange.requestEnd();
    exchange.response(200, ['Content-Type', 'application/json']);
    exchange.answerChunk(Buffer.from('{"jsonrpc":"2.0","id":1,'));
    await turn();
    expect(source.after(0)).toEqual([]);
    exchange.answerChunk(Buffer.from('"result":{}}'));
    now = 250;
    exchange.end('complete');
    await turn();
    expect(source.after(0).map((m) => [m.seen.message, m.seen.at])).toEqual([
      [{ jsonrpc: '2.0', id: 1, result: {} }, 250],
    ]);
  });

  it('notes a 401 asking for a Bearer token once, with the --header way', async () => {
    const tap = new ProxyTap();
    const notes: string[] = [];
    const source = httpSource({
      tap,
      name: 'up',
      upstream: 'https://api.example/mcp',
      onNote: (n) => notes.push(n),
    });
    const answer = (status: number, challenge: string) => {
      const exchange = tap.begin('up', 'POST', '/proxy/up/mcp', []);
      exchange.requestEnd();
      exchange.response(status, ['WWW-Authenticate', challenge]);
      exchange.end('complete');
    };
    answer(401, 'Basic realm="x"');
    answer(403, 'Bearer error="insufficient_scope"');
    await turn();
    expect(source.note()).toBeUndefined();
    answer(401, 'Basic realm="x", Bearer resource_metadata="https://api.example/.well-known/x"');
    answer(401, 'Bearer');
    await turn();
    expect(source.note()).toContain(
      "taskscope proxy https://api.example/mcp --header 'Authorization: Bearer ${TOKEN}'",
    );
    expect(notes).toEqual([source.note()]);
  });
});
