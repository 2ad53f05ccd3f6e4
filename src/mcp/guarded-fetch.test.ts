import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeadlineExceeded, HttpStatusError, WrongResponseId } from './errors';
import { guardedFetch } from './guarded-fetch';
import { TrafficTap } from './traffic';
import { classifyError } from './classify';

/** A receiver that never answers: the fetch settles only when its signal aborts. */
const silent: typeof fetch = (_input, init) =>
  new Promise((_resolve, reject) =>
    init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
  );

const rpc = (method: string, id = 7) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id, method, params: {} }),
});

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe('guardedFetch', () => {
  it('sends no credentials to a receiver, whatever the method (no browser login prompt on a Basic 401)', async () => {
    const seen: Array<[string, RequestCredentials | undefined]> = [];
    const recording: typeof fetch = (_input, init) => {
      seen.push([init?.method ?? 'GET', init?.credentials]);
      return Promise.resolve(new Response('{"jsonrpc":"2.0","id":7,"result":{}}', { status: 200 }));
    };
    const guarded = guardedFetch(recording, new TrafficTap(), {});
    await guarded('http://r/mcp', { ...rpc('tasks/get'), credentials: 'include' });
    await guarded('http://r/mcp', { method: 'GET' });
    await guarded('http://r/mcp', { method: 'DELETE' });
    expect(seen).toEqual([
      ['POST', 'omit'],
      ['GET', 'omit'],
      ['DELETE', 'omit'],
    ]);
  });

  it('aborts a poll the receiver never answers at its deadline, frees it, and says so', async () => {
    const outcomes: boolean[] = [];
    const guarded = guardedFetch(silent, new TrafficTap(), { outcome: (ok) => outcomes.push(ok) });
    const poll = guarded('http://r/mcp', rpc('tasks/get'));
    const caught = poll.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(4999);
    expect(outcomes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    const error = await caught;
    expect(error).toBeInstanceOf(DeadlineExceeded);
    expect(outcomes).toEqual([false]);
    expect(classifyError(error).message).toMatch(
      /Receiver not answering: no answer to tasks\/get within 5 s/,
    );
  });

  it('gives tasks/result and tools/call no deadline: they stay open by design', async () => {
    const guarded = guardedFetch(silent, new TrafficTap(), {});
    const controller = new AbortController();
    const result = guarded('http://r/mcp', { ...rpc('tasks/result'), signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    let settled = false;
    void result.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(30 * 60_000);
    expect(settled).toBe(false);
    controller.abort(new Error('closed by the person'));
    expect(await result).toMatchObject({ message: 'closed by the person' });
  });

  it('fails at once on a JSON answer that carries another id', async () => {
    const wrong: typeof fetch = async () =>
      new Response(JSON.stringify({ jsonrpc: '2.0', id: 1007, result: {} }), {
        headers: { 'content-type': 'application/json' },
      });
    const guarded = guardedFetch(wrong, new TrafficTap(), {});
    const error = await guarded('http://r/mcp', rpc('tasks/get', 7)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WrongResponseId);
    expect(classifyError(error).message).toContain('id [1007], expected [7]');
  });

  it('hands a good JSON answer on whole', async () => {
    const good: typeof fetch = async () =>
      new Response(JSON.stringify({ jsonrpc: '2.0', id: 7, result: { ok: true } }), {
        headers: { 'content-type': 'application/json' },
      });
    const response = await guardedFetch(good, new TrafficTap(), {})('http://r/mcp', rpc('tasks/get'));
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 7, result: { ok: true } });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('reads a chunked JSON answer whole, a character split across chunks included, and hands on its headers', async () => {
    const bytes = new TextEncoder().encode(
      JSON.stringify({ jsonrpc: '2.0', id: 7, result: { statusMessage: 'Grüße 😀' } }),
    );
    const cut = bytes.indexOf(0xf0) + 2;
    const chunked: typeof fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(bytes.subarray(0, cut));
            controller.enqueue(bytes.subarray(cut));
            controller.close();
          },
        }),
        { status: 200, headers: { 'content-type': 'application/json', 'mcp-session-id': 's-1' } },
      );
    const response = await guardedFetch(chunked, new TrafficTap(), {})('http://r/mcp', rpc('tasks/get'));
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBe('s-1');
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { statusMessage: 'Grüße 😀' },
    });
    expect(await response.text()).toBe(new TextDecoder().decode(bytes));
    expect(response.body).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('hands on an answer the SDK can still cancel the body of, as it does for a 202', async () => {
    const accepted: typeof fetch = async () =>
      new Response(JSON.stringify({ jsonrpc: '2.0', id: 7, result: {} }), {
        status: 202,
        headers: { 'content-type': 'application/json' },
      });
    const response = await guardedFetch(accepted, new TrafficTap(), {})('http://r/mcp', rpc('tasks/get'));
    await expect(Promise.resolve(response.body?.cancel())).resolves.toBeUndefined();
    expect(response.status).toBe(202);
  });

  it('turns HTTP 429 into an error with its Retry-After', async () => {
    const busy: typeof fetch = async () =>
      new Response('slow down', { status: 429, headers: { 'retry-after': '4000' } });
    const error = await guardedFetch(
      busy,
      new TrafficTap(),
      {},
    )('http://r/mcp', rpc('tasks/get')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 4_000_000 });
  });

  it('keeps notification-stream reconnects a second apart and backs off while they fail fast', async () => {
    const opened: number[] = [];
    const closesAtOnce: typeof fetch = async () => {
      opened.push(Date.now());
      return new Response('retry: 0\n\n', { headers: { 'content-type': 'text/event-stream' } });
    };
    const guarded = guardedFetch(closesAtOnce, new TrafficTap(), {});
    const get = { method: 'GET', headers: { accept: 'text/event-stream' } };
    const reconnects = (async () => {
      for (let i = 0; i < 5; i++) await guarded('http://r/mcp', get);
    })();
    await vi.advanceTimersByTimeAsync(60_000);
    await reconnects;
    const gaps = opened.slice(1).map((t, i) => t - opened[i]!);
    expect(gaps).toEqual([2000, 4000, 8000, 16000]);
  });

  it('a body that stalls after its headers is aborted at the deadline too (JSON read here, SSE read later)', async () => {
    const stalls =
      (type: string): typeof fetch =>
      async (_input, init) =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(
                new TextEncoder().encode(type.includes('json') ? '{"jsonrpc"' : ': ping\n\n'),
              );
              init?.signal?.addEventListener('abort', () => controller.error(init.signal?.reason));
            },
          }),
          { headers: { 'content-type': type } },
        );
    const outcomes: boolean[] = [];
    const json = guardedFetch(stalls('application/json'), new TrafficTap(), {
      outcome: (ok) => outcomes.push(ok),
    });
    const polled = json('http://r/mcp', rpc('tasks/get')).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(5000);
    expect(await polled).toBeInstanceOf(DeadlineExceeded);

    const sse = guardedFetch(stalls('text/event-stream'), new TrafficTap(), {
      outcome: (ok) => outcomes.push(ok),
    });
    const response = await sse('http://r/mcp', rpc('tasks/list'));
    const reading = response.text().catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await reading).toBeInstanceOf(Error);
    expect(outcomes).toEqual([false, false]);
  });
});
