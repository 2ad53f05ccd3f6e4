import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileReceiver, type CaseName, type HostileReceiver } from '../servers/hostile/receiver';

let receiver: HostileReceiver;
beforeAll(async () => {
  receiver = await startHostileReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const ORIGIN = 'http://127.0.0.1:5173';
const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
  origin: ORIGIN,
};
let nextId = 0;

function post(name: CaseName, method: string, params: Record<string, unknown> = {}, signal?: AbortSignal) {
  const id = ++nextId;
  return {
    id,
    response: fetch(receiver.caseUrl(name), {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      signal,
    }),
  };
}

async function call(name: CaseName, method: string, params?: Record<string, unknown>) {
  const { id, response } = post(name, method, params);
  const res = await response;
  return { id, res, body: (await res.json()) as Record<string, unknown> };
}

describe('hostile receiver', () => {
  it('initializes and lists its one tool like any receiver, with CORS for loopback origins', async () => {
    const init = await call('ttl-absurd', 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'test', version: '0' },
    });
    expect(init.res.status).toBe(200);
    expect(init.res.headers.get('mcp-session-id')).toMatch(/^hostile-ttl-absurd-/);
    expect(init.res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(init.res.headers.get('access-control-expose-headers')).toMatch(/Mcp-Session-Id/);
    expect(init.body.result).toMatchObject({
      protocolVersion: '2025-11-25',
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      serverInfo: { name: 'hostile-ttl-absurd', version: '0' },
    });
    expect((init.body.result as { instructions: string }).instructions).toContain('ttl-absurd');

    const tools = await call('ttl-absurd', 'tools/list');
    expect(tools.body.result).toEqual({
      tools: [expect.objectContaining({ name: 'job', execution: { taskSupport: 'required' } })],
    });

    const preflight = await fetch(receiver.caseUrl('ttl-absurd'), {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-session-id');
    const foreign = await fetch(receiver.caseUrl('ttl-absurd'), {
      method: 'OPTIONS',
      headers: { origin: 'https://example.com' },
    });
    expect(foreign.status).toBe(403);
    expect(receiver.counts('ttl-absurd').methods).toMatchObject({ initialize: 1, 'tools/list': 1 });
  });

  it('huge-interval lists two working tasks with absurd pollIntervals', async () => {
    const { body } = await call('huge-interval', 'tasks/list');
    const tasks = (body.result as { tasks: Record<string, unknown>[] }).tasks;
    expect(tasks.map((t) => [t.status, t.pollInterval, t.ttl])).toEqual([
      ['working', 1e12, 600_000],
      ['working', 2 ** 31, 600_000],
    ]);
    expect(body.result).not.toHaveProperty('nextCursor');
  });

  it('wrong-id answers tasks/get with another id, and counts the poll', async () => {
    receiver.reset('wrong-id');
    const { id, body } = await call('wrong-id', 'tasks/get', { taskId: 'wrong-id' });
    expect(body.id).toBe(id + 1000);
    expect(body.result).toMatchObject({ taskId: 'wrong-id', status: 'working' });
    const counts = receiver.counts('wrong-id');
    expect(counts.methods['tasks/get']).toBe(1);
    expect(counts.tasksGet['wrong-id']).toEqual({ count: 1, at: [expect.any(Number)] });
  });

  it('retry-after-http answers tasks/get with HTTP 429 and Retry-After: 4000', async () => {
    const { id, res, body } = await call('retry-after-http', 'tasks/get', { taskId: 'rate-limited-http' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('4000');
    expect(res.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    expect(body).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32429 } });
  });

  it('sse-retry-zero answers the GET stream with retry: 0 and closes it', async () => {
    const before = receiver.counts('sse-retry-zero').GET;
    const res = await fetch(receiver.caseUrl('sse-retry-zero'), {
      headers: { accept: 'text/event-stream', origin: ORIGIN },
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(await res.text()).toBe('retry: 0\n\n');
    expect(receiver.counts('sse-retry-zero').GET).toBe(before + 1);
  });

  it('close() returns while silent-get and endless-sse-answer hold requests open, and ends them', async () => {
    const silent = post('silent-get', 'tasks/get', { taskId: 'silent' });
    const silentOutcome = silent.response.then(
      () => 'answered',
      () => 'failed',
    );
    const endless = await post('endless-sse-answer', 'tasks/get', { taskId: 'endless-sse' }).response;
    expect(endless.headers.get('content-type')).toBe('text/event-stream');
    const reader = endless.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain(': ping');
    const rest = (async () => {
      for (let i = 0; i < 100; i++) if ((await reader.read()).done) return 'ended';
      return 'still streaming';
    })().catch(() => 'ended');

    await expect.poll(() => receiver.counts('silent-get').open, { timeout: 2000 }).toBe(1);
    expect(receiver.counts('endless-sse-answer').open).toBe(1);

    // How soon is the machine's business; that it returns with nothing left open is the receiver's.
    await receiver.close();
    expect(await silentOutcome).toBe('failed');
    expect(await rest).toBe('ended');
    expect(receiver.counts('silent-get').open).toBe(0);
    expect(receiver.counts('endless-sse-answer').open).toBe(0);
  });
});
