import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extTasksSession } from '../helpers/ext-tasks-session';
import { waitFor } from '../helpers/wait';
import { startDemoReceiver2026, type RunningReceiver2026 } from '../helpers/receiver-2026';

const EXT = 'io.modelcontextprotocol/tasks';
const V2026 = '2026-07-28';
const CLIENT_INFO = { name: 'taskscope-test', version: '0.0.0' };

type Json = Record<string, unknown>;
interface RpcAnswer {
  status: number;
  headers: Headers;
  /** The JSON-RPC response to our request, from a JSON body or the SSE stream. */
  message: { id?: unknown; result?: Json; error?: { code: number; message: string; data?: Json } };
}

function envelope(extension = true): Json {
  return {
    'io.modelcontextprotocol/protocolVersion': V2026,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': {
      elicitation: { form: {} },
      ...(extension && { extensions: { [EXT]: {} } }),
    },
  };
}

/** The headers a 2026-07-28 client derives from the body (research §1.2). */
function headersFor(method: string, params: Json): Record<string, string> {
  const name =
    method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined;
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': V2026,
    'Mcp-Method': method,
    ...(typeof name === 'string' && { 'Mcp-Name': name }),
  };
}

/** SSE frames of a whole body: every `data:` payload parsed, comments skipped. */
function sseMessages(text: string): Json[] {
  return text
    .split(/\n\n/)
    .map((frame) =>
      frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('\n'),
    )
    .filter(Boolean)
    .map((data) => JSON.parse(data) as Json);
}

let nextId = 1;
async function rpc(
  url: string,
  method: string,
  params: Json = {},
  options: { extension?: boolean; headers?: Record<string, string | undefined>; meta?: Json | null } = {},
): Promise<RpcAnswer> {
  const id = nextId++;
  const meta = options.meta === null ? undefined : (options.meta ?? envelope(options.extension ?? true));
  const headers = { ...headersFor(method, params), ...options.headers };
  const res = await fetch(url, {
    method: 'POST',
    headers: Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
      string,
      string
    >,
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, ...(meta && { _meta: meta }) } }),
  });
  const text = await res.text();
  const messages = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? sseMessages(text)
    : [JSON.parse(text) as Json];
  const message = messages.find((m) => m.id === id) ?? messages.at(-1)!;
  return { status: res.status, headers: res.headers, message: message as RpcAnswer['message'] };
}

const callTool = (url: string, name: string, args: Json, options?: Parameters<typeof rpc>[3]) =>
  rpc(url, 'tools/call', { name, arguments: args }, options);

async function getTask(url: string, taskId: string): Promise<Json> {
  const { status, message } = await rpc(url, 'tasks/get', { taskId });
  expect(status).toBe(200);
  expect(message.error).toBeUndefined();
  expect(message.result!.resultType).toBe('complete');
  return message.result!;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What is checked here is the receiver's answers, not a client's pacing (the tracker's tests hold that): the
 * test asks every 50 ms, or at the pollIntervalMs of the latest answer where that is sooner, until `done`
 * says so. Asking sooner than the hint only sees each state more often (ask_user's hint is 1 s).
 */
const LOOK_MS = 50;
const lookAfter = (task: Json) => Math.min(Number(task.pollIntervalMs ?? LOOK_MS), LOOK_MS);

async function pollUntil(url: string, created: Json, done: (task: Json) => boolean, limit = 200) {
  const seen: Json[] = [];
  let last = created;
  for (let i = 0; i < limit && !done(last); i++) {
    await sleep(lookAfter(last));
    last = await getTask(url, String(created.taskId));
    seen.push(last);
  }
  expect(done(last)).toBe(true);
  return { last, seen };
}
const terminal = (t: Json) => ['completed', 'failed', 'cancelled'].includes(String(t.status));

async function createTask(url: string, name: string, args: Json): Promise<Json> {
  const { status, message } = await callTool(url, name, args);
  expect(status).toBe(200);
  expect(message.error).toBeUndefined();
  expect(message.result).toMatchObject({ resultType: 'task', status: 'working' });
  return message.result!;
}

let demo: RunningReceiver2026;
beforeAll(async () => {
  demo = await startDemoReceiver2026();
});
afterAll(async () => {
  await demo?.close();
});

describe('2026-07-28 demo receiver over raw HTTP', () => {
  it('server/discover lists the tasks extension and the demo identity', async () => {
    const { status, message } = await rpc(demo.url, 'server/discover');
    expect(status).toBe(200);
    expect(message.result!.supportedVersions).toEqual([V2026]);
    expect(message.result!.capabilities).toMatchObject({ extensions: { [EXT]: {} }, logging: {} });
    expect(message.result!._meta).toMatchObject({
      'io.modelcontextprotocol/serverInfo': { name: 'taskscope-demo-2026' },
    });
    const tools = await rpc(demo.url, 'tools/list');
    const names = (tools.message.result!.tools as Json[]).map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'slow_job',
        'flaky_job',
        'variable_poll_job',
        'short_ttl_job',
        'ask_user',
        'rich_result_job',
        'summarise',
        'echo',
      ]),
    );
  });

  it('slow_job runs to completed with the result inline and its pollIntervalMs as given', async () => {
    const created = await createTask(demo.url, 'slow_job', {
      durationMs: 600,
      steps: 3,
      pollIntervalMs: 120,
      label: 'it',
      ttlMs: 30_000,
    });
    expect(created).toMatchObject({ ttlMs: 30_000, pollIntervalMs: 120 });
    expect(typeof created.taskId).toBe('string');
    const { last, seen } = await pollUntil(demo.url, created, terminal);
    expect(seen.every((t) => t.pollIntervalMs === 120)).toBe(true);
    expect(seen.map((t) => t.statusMessage)).toContain('Step 3/3: it');
    expect(last).toMatchObject({
      status: 'completed',
      taskId: created.taskId,
      result: {
        resultType: 'complete',
        content: [{ type: 'text', text: 'Finished it: 3 steps in 600 ms.' }],
      },
    });
  });

  it('flaky_job ends failed with a JSON-RPC error and its statusMessage', async () => {
    const created = await createTask(demo.url, 'flaky_job', { failAfterMs: 100, reason: 'disk full' });
    const { last } = await pollUntil(demo.url, created, terminal);
    expect(last).toMatchObject({
      status: 'failed',
      statusMessage: 'Failed: disk full',
      error: { code: -32603, message: 'flaky_job failed: disk full' },
    });
    expect(last.result).toBeUndefined();
  });

  it('variable_poll_job changes pollIntervalMs mid-run', async () => {
    const created = await createTask(demo.url, 'variable_poll_job', {
      fastMs: 60,
      slowMs: 200,
      switchAfterMs: 200,
      totalMs: 500,
    });
    expect(created.pollIntervalMs).toBe(60);
    const { seen } = await pollUntil(demo.url, created, terminal);
    const hints = [...new Set(seen.map((t) => t.pollIntervalMs))];
    expect(hints).toEqual([60, 200]);
  });

  it('ask_user asks through inputRequests until tasks/update answers it', async () => {
    const created = await createTask(demo.url, 'ask_user', { question: 'Favourite colour?' });
    const { last: asking } = await pollUntil(demo.url, created, (t) => t.status === 'input_required');
    const requests = asking.inputRequests as Json;
    const keys = Object.keys(requests);
    expect(keys).toHaveLength(1);
    const key = keys[0]!;
    expect(requests[key]).toEqual({
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: 'Favourite colour?',
        requestedSchema: {
          type: 'object',
          properties: { answer: { type: 'string', title: 'Answer' } },
          required: ['answer'],
        },
      },
    });
    // The same key comes back on every poll until it is answered.
    const again = await getTask(demo.url, String(created.taskId));
    expect(again).toMatchObject({ status: 'input_required', inputRequests: { [key]: requests[key] } });

    // Unknown keys are ignored; an answer that is not an ElicitResult is refused.
    const unknown = await rpc(demo.url, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { 'not-asked': { action: 'accept', content: { answer: 'red' } } },
    });
    expect(unknown.message.result).toMatchObject({ resultType: 'complete' });
    expect((await getTask(demo.url, String(created.taskId))).status).toBe('input_required');
    const invalid = await rpc(demo.url, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { [key]: { action: 'accept', content: { colour: 1 } } },
    });
    expect(invalid.message.error?.code).toBe(-32602);

    const update = await rpc(demo.url, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { [key]: { action: 'accept', content: { answer: 'teal' } } },
    });
    expect(update.status).toBe(200);
    expect(update.message.result).toMatchObject({ resultType: 'complete' });
    // Answered keys are ignored from now on.
    const repeated = await rpc(demo.url, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { [key]: { action: 'accept', content: { answer: 'mauve' } } },
    });
    expect(repeated.message.error).toBeUndefined();
    const { last } = await pollUntil(demo.url, asking, terminal);
    expect(last).toMatchObject({
      status: 'completed',
      result: {
        content: [{ type: 'text', text: 'You answered: teal' }],
        structuredContent: { action: 'accept' },
      },
    });
    expect(last.inputRequests).toBeUndefined();
  });

  it('ask_user declined completes saying so', async () => {
    const created = await createTask(demo.url, 'ask_user', {});
    const { last: asking } = await pollUntil(demo.url, created, (t) => t.status === 'input_required');
    const [key] = Object.keys(asking.inputRequests as Json);
    await rpc(demo.url, 'tasks/update', {
      taskId: created.taskId,
      inputResponses: { [key!]: { action: 'decline' } },
    });
    const { last } = await pollUntil(demo.url, asking, terminal);
    expect(last).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'You chose to decline.' }] },
    });
  });

  it('tasks/cancel acknowledges empty; the task becomes cancelled, a finished one stays finished', async () => {
    const created = await createTask(demo.url, 'slow_job', { durationMs: 60_000, pollIntervalMs: 100 });
    const cancel = await rpc(demo.url, 'tasks/cancel', { taskId: created.taskId });
    expect(cancel.status).toBe(200);
    expect(Object.keys(cancel.message.result!).sort()).toEqual(['_meta', 'resultType']);
    expect(await getTask(demo.url, String(created.taskId))).toMatchObject({
      status: 'cancelled',
      statusMessage: 'Client cancelled task execution.',
    });

    const quick = await createTask(demo.url, 'slow_job', { durationMs: 0, steps: 1, pollIntervalMs: 50 });
    await pollUntil(demo.url, quick, terminal);
    await rpc(demo.url, 'tasks/cancel', { taskId: quick.taskId });
    expect((await getTask(demo.url, String(quick.taskId))).status).toBe('completed');

    const missing = await rpc(demo.url, 'tasks/cancel', { taskId: 'no-such-task' });
    expect(missing.message.error).toMatchObject({
      code: -32602,
      message: 'Failed to retrieve task: Task not found',
    });
  });

  it('short_ttl_job keeps its ttlMs and is gone (-32602 expired) ttlMs after it was created', async () => {
    const created = await createTask(demo.url, 'short_ttl_job', { ttlMs: 1000, durationMs: 100 });
    expect(created.ttlMs).toBe(1000);
    const { last } = await pollUntil(demo.url, created, terminal);
    expect(last).toMatchObject({ status: 'completed', ttlMs: 1000 });
    // Asked again until it answers an error: the expiry.
    let gone = await rpc(demo.url, 'tasks/get', { taskId: created.taskId });
    for (let i = 0; i < 200 && gone.message.error === undefined; i++) {
      expect(gone.message.result).toMatchObject({ status: 'completed' });
      await sleep(lookAfter(last));
      gone = await rpc(demo.url, 'tasks/get', { taskId: created.taskId });
    }
    expect(gone.status).toBe(200);
    expect(gone.message.error).toEqual({
      code: -32602,
      message: 'Failed to retrieve task: Task has expired',
    });
    const unknown = await rpc(demo.url, 'tasks/get', { taskId: 'never-created' });
    expect(unknown.message.error).toMatchObject({
      code: -32602,
      message: 'Failed to retrieve task: Task not found',
    });
  });

  it('summarise answers inline without the extension; echo is never a task', async () => {
    const inline = await callTool(demo.url, 'summarise', { text: 'one two three' }, { extension: false });
    expect(inline.message.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: '3 words; starts "one two three"' }],
    });
    const asTask = await createTask(demo.url, 'summarise', { text: 'one two three' });
    expect(asTask.pollIntervalMs).toBe(300);
    const echo = await callTool(demo.url, 'echo', { message: 'hi' });
    expect(echo.message.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'hi' }],
    });
  });

  it('refuses initialize (-32022), a task-only tool without the extension (-32021) and a missing Mcp-Name (-32020)', async () => {
    const init = await rpc(
      demo.url,
      'initialize',
      { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO },
      { meta: null, headers: { 'MCP-Protocol-Version': undefined, 'Mcp-Method': undefined } },
    );
    expect(init.status).toBe(400);
    expect(init.message.error).toMatchObject({ code: -32022, data: { supported: [V2026] } });

    const noExt = await callTool(demo.url, 'slow_job', {}, { extension: false });
    expect(noExt.status).toBe(400);
    expect(noExt.message.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [EXT]: {} } } },
    });
    const getNoExt = await rpc(demo.url, 'tasks/get', { taskId: 'x' }, { extension: false });
    expect(getNoExt.message.error?.code).toBe(-32021);

    const noName = await callTool(demo.url, 'slow_job', {}, { headers: { 'Mcp-Name': undefined } });
    expect(noName.status).toBe(400);
    expect(noName.message.error?.code).toBe(-32020);
    const getNoName = await rpc(
      demo.url,
      'tasks/get',
      { taskId: 'x' },
      { headers: { 'Mcp-Name': undefined } },
    );
    expect(getNoName.status).toBe(400);
    expect(getNoName.message.error?.code).toBe(-32020);
  });
});

describe('subscriptions/listen for task ids', () => {
  async function listen(taskIds: string[], extension = true) {
    const params = { notifications: { taskIds }, _meta: envelope(extension) };
    const id = nextId++;
    const res = await fetch(demo.url, {
      method: 'POST',
      headers: headersFor('subscriptions/listen', params),
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params }),
    });
    return { id, res };
  }

  it('acknowledges the known task ids, pushes each change and closes once they are terminal', async () => {
    const created = await createTask(demo.url, 'slow_job', {
      durationMs: 300,
      steps: 2,
      pollIntervalMs: 1000,
    });
    const { id, res } = await listen([String(created.taskId), 'no-such-task']);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // The server ends the stream itself once every subscribed task has ended.
    const messages = sseMessages(await res.text());
    const meta = { 'io.modelcontextprotocol/subscriptionId': id };
    expect(messages[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: [created.taskId] }, _meta: meta },
    });
    const pushes = messages.filter((m) => m.method === 'notifications/tasks').map((m) => m.params as Json);
    expect(pushes.every((p) => p.taskId === created.taskId)).toBe(true);
    expect(pushes.every((p) => JSON.stringify(p._meta) === JSON.stringify(meta))).toBe(true);
    expect(pushes.map((p) => p.statusMessage)).toContain('Step 2/2: job');
    expect(pushes.at(-1)).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'Finished job: 2 steps in 300 ms.' }] },
    });
    expect(messages.at(-1)).toMatchObject({
      jsonrpc: '2.0',
      id,
      result: { resultType: 'complete', _meta: meta },
    });
    expect(demo.receiver.listenCount()).toBe(0);
  });

  it('refuses task ids from a client without the extension (-32021)', async () => {
    const { res } = await listen(['x'], false);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32021);
  });

  it('refuses a listen without its Mcp-Method header as the SDK would (-32020)', async () => {
    const params = { notifications: { taskIds: [] }, _meta: envelope() };
    const { 'Mcp-Method': _omitted, ...headers } = headersFor('subscriptions/listen', params);
    const res = await fetch(demo.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'subscriptions/listen', params }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      id: 7,
      error: { code: -32020, data: { mismatch: { header: '(missing)' } } },
    });
  });

  it('stops a stream whose client went away', async () => {
    const created = await createTask(demo.url, 'slow_job', { durationMs: 60_000, pollIntervalMs: 1000 });
    const controller = new AbortController();
    const params = { notifications: { taskIds: [created.taskId] }, _meta: envelope() };
    const res = await fetch(demo.url, {
      method: 'POST',
      headers: headersFor('subscriptions/listen', params),
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'subscriptions/listen', params }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    expect(demo.receiver.listenCount()).toBe(1);
    controller.abort();
    await expect.poll(() => demo.receiver.listenCount()).toBe(0);
    await rpc(demo.url, 'tasks/cancel', { taskId: created.taskId });
  });
});

describe('the ext-tasks client on the same receiver', () => {
  const session = (url: string) => extTasksSession(url, 'demo-2026');

  it('runs slow_job and ask_user to completed', async () => {
    const s = await session(demo.url);
    try {
      expect(s.client.getProtocolEra()).toBe('modern');
      const slow = await s.tasks.callTool('slow_job', { durationMs: 200, steps: 2, pollIntervalMs: 50 });
      const { outcome } = await slow.settle();
      expect(outcome.status).toBe('completed');
      expect(outcome.status === 'completed' && outcome.result).toMatchObject({
        content: [{ type: 'text', text: 'Finished job: 2 steps in 200 ms.' }],
      });
      const ask = await s.tasks.callTool('ask_user', { question: 'Colour?' });
      const asked = await ask.settle();
      expect(asked.outcome.status === 'completed' && asked.outcome.result).toMatchObject({
        content: [{ type: 'text', text: 'You answered: teal' }],
      });
    } finally {
      await s.close();
    }
  });
});

describe('receiver lifecycle and the dual-era variant', () => {
  it('answers a 2025 initialize and a 2026 discover on the dual-era variant', async () => {
    const dual = await startDemoReceiver2026({ dual: true });
    try {
      const res = await fetch(dual.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO },
        }),
      });
      expect(res.status).toBe(200);
      const text = await res.text();
      const [init] = res.headers.get('content-type')?.startsWith('text/event-stream')
        ? sseMessages(text)
        : [JSON.parse(text) as Json];
      expect(init!.result).toMatchObject({
        protocolVersion: '2025-11-25',
        serverInfo: { name: 'taskscope-demo-2026' },
        capabilities: { extensions: { [EXT]: {} } },
      });
      const discover = await rpc(dual.url, 'server/discover');
      expect(discover.message.result!.supportedVersions).toContain(V2026);
      const created = await createTask(dual.url, 'slow_job', { durationMs: 0, steps: 1 });
      expect(created.taskId).toBeTruthy();
    } finally {
      await dual.close();
    }
  });

  it('answers CORS preflights for loopback pages with the new headers, refuses foreign origins', async () => {
    const preflight = await fetch(demo.url, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:5173',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers':
          'content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    const allowed = preflight.headers.get('access-control-allow-headers')!.split(', ');
    expect(allowed).toEqual(
      expect.arrayContaining(['mcp-method', 'mcp-name', 'mcp-param-region', 'authorization']),
    );
    expect(preflight.headers.get('access-control-expose-headers')).toBe('mcp-protocol-version, retry-after');
    const foreign = await rpc(
      demo.url,
      'server/discover',
      {},
      { headers: { Origin: 'https://evil.example' } },
    );
    expect(foreign.status).toBe(403);

    const plain = await startDemoReceiver2026({ cors: false });
    try {
      const answer = await rpc(
        plain.url,
        'server/discover',
        {},
        { headers: { Origin: 'http://localhost:5173' } },
      );
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await plain.close();
    }
  });

  it('keeps at most maxTasks, dropping the oldest finished task first', async () => {
    const small = await startDemoReceiver2026({ maxTasks: 3 });
    try {
      const running = await createTask(small.url, 'slow_job', { durationMs: 60_000 });
      const done = await createTask(small.url, 'slow_job', { durationMs: 0, steps: 1, pollIntervalMs: 50 });
      await pollUntil(small.url, done, terminal);
      const third = await createTask(small.url, 'slow_job', { durationMs: 60_000 });
      const fourth = await createTask(small.url, 'slow_job', { durationMs: 60_000 });
      expect(small.receiver.taskCount()).toBe(3);
      const gone = await rpc(small.url, 'tasks/get', { taskId: done.taskId });
      expect(gone.message.error).toMatchObject({
        code: -32602,
        message: 'Failed to retrieve task: Task has expired',
      });
      for (const t of [running, third, fourth]) {
        expect((await getTask(small.url, String(t.taskId))).status).toBe('working');
      }
      // None finished: the oldest of all makes room.
      await createTask(small.url, 'slow_job', { durationMs: 60_000 });
      expect((await rpc(small.url, 'tasks/get', { taskId: running.taskId })).message.error?.code).toBe(
        -32602,
      );
    } finally {
      await small.close();
    }
  });

  it('close() stops every task, stream and timer it started', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const baseline = timers();
    const own = await startDemoReceiver2026({ keepAliveMs: 40 });
    const created = await createTask(own.url, 'slow_job', { durationMs: 60_000, steps: 2 });
    await createTask(own.url, 'ask_user', {});
    const params = { notifications: { taskIds: [created.taskId] }, _meta: envelope() };
    const stream = await fetch(own.url, {
      method: 'POST',
      headers: headersFor('subscriptions/listen', params),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params }),
    });
    let text = '';
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    const drained = (async () => {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        text += decoder.decode(chunk.value, { stream: true });
      return text;
    })();
    // An inline summarise waits inside its request: close() must end that wait too.
    const inline = callTool(own.url, 'summarise', { text: 'a b' }, { extension: false }).catch(
      () => undefined,
    );
    // The stream has kept itself alive once, and the summarise has reached the receiver (the fourth POST).
    await waitFor(() => text.includes(': keep-alive'), 5000);
    await waitFor(() => (own.arrivals.POST ?? 0) >= 4, 5000);
    expect(own.receiver.taskCount()).toBe(2);
    expect(own.receiver.listenCount()).toBe(1);
    expect(timers()).toBeGreaterThan(baseline);
    await own.close();
    await drained;
    await inline;
    expect(own.receiver.taskCount()).toBe(0);
    expect(own.receiver.listenCount()).toBe(0);
    expect(timers()).toBeLessThanOrEqual(baseline);
  });
});
