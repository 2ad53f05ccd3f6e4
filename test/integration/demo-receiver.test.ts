import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpSession, TasksApi, classifyError, type TaskSnapshot } from '../../src/mcp';
import { startDemoReceiver, type RunningReceiver } from '../helpers/receivers';
import { matchesTool } from '../../src/tools/tool-search';
import { isLongText } from '../../src/ui/fold';

let receiver: RunningReceiver;
beforeAll(async () => {
  receiver = await startDemoReceiver();
});
afterAll(async () => {
  await receiver.close();
});

async function followToEnd(api: TasksApi, first: TaskSnapshot): Promise<TaskSnapshot[]> {
  const seen = [first];
  let last = first;
  while (last.status === 'working' || last.status === 'input_required') {
    // The test is the client here: it waits the pollInterval asked for, as a client must.
    await new Promise((r) => setTimeout(r, last.pollInterval ?? 1000));
    const { value, warnings } = await api.getTask(last.taskId, last);
    expect(warnings).toEqual([]);
    last = value!;
    seen.push(last);
  }
  return seen;
}

describe('demo receiver, end to end over Streamable HTTP', () => {
  it('describes itself and lists tools of all three taskSupport kinds', async () => {
    const session = await McpSession.connect({ url: receiver.url });
    try {
      const server = session.describeServer();
      expect(server.name).toBe('taskscope-demo');
      expect(server.protocolVersion).toBe('2025-11-25');
      const api = new TasksApi(session);
      expect(api.support).toEqual({ list: true, cancel: true, toolCall: true });
      const { tools, warnings } = await api.listTools();
      expect(warnings).toEqual([]);
      const kinds = new Set(tools.map((t) => t.taskSupport));
      expect(kinds).toEqual(new Set(['required', 'optional', 'forbidden']));
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining([
          'slow_job',
          'flaky_job',
          'ask_user',
          'variable_poll_job',
          'short_ttl_job',
          'rich_result_job',
          'echo',
        ]),
      );
      // Its instructions are short, shown whole on the card; the search finds ask_user by its description.
      expect(server.instructions).toContain('Demo receiver for Taskscope');
      expect(isLongText(server.instructions ?? '')).toBe(false);
      expect(tools.filter((t) => matchesTool(t, 'elicitation')).map((t) => t.name)).toEqual(['ask_user']);
    } finally {
      await session.close();
    }
  });

  it('runs slow_job: create → tasks/get until completed → tasks/result', async () => {
    const session = await McpSession.connect({ url: receiver.url });
    try {
      const api = new TasksApi(session);
      const { tools } = await api.listTools();
      const slow = tools.find((t) => t.name === 'slow_job')!;
      const created = await api.createTask(
        slow,
        { durationMs: 600, steps: 3, pollIntervalMs: 100, label: 'it' },
        { ttl: 30_000 },
      );
      expect(created.warnings).toEqual([]);
      expect(created.value).toMatchObject({
        status: 'working',
        ttl: 30_000,
        pollInterval: 100,
        shape: 'wrapped',
      });
      const history = await followToEnd(api, created.value!);
      expect(history.at(-1)!.status).toBe('completed');
      expect(history.map((t) => t.statusMessage)).toContain('Step 3/3: it');
      const { value: result, warnings } = await api.getTaskResult(created.value!.taskId);
      expect(warnings).toEqual([]);
      expect(result.isError).toBe(false);
      expect(result.result).toMatchObject({
        content: [{ type: 'text', text: 'Finished it: 3 steps in 600 ms.' }],
      });
    } finally {
      await session.close();
    }
  });

  it('purges a finished task at createdAt + ttl, not a ttl after it ended (the healthy receiver keeps none beyond)', async () => {
    const session = await McpSession.connect({ url: receiver.url });
    try {
      const api = new TasksApi(session);
      const { tools } = await api.listTools();
      const short = tools.find((t) => t.name === 'short_ttl_job')!;
      // Runs 1.5 s of its 2 s: the SDK's own store would keep it until 3.5 s after creation.
      const { value: created } = await api.createTask(short, { ttlMs: 2000, durationMs: 1500 });
      const history = await followToEnd(api, created!);
      expect(history.at(-1)).toMatchObject({ status: 'completed', ttl: 2000 });
      const { value: result } = await api.getTaskResult(created!.taskId);
      expect(result.isError).toBe(false);
      // Asked every 100 ms until it is gone (at most 5 s).
      let goneAt: number | undefined;
      for (let i = 0; i < 50 && goneAt === undefined; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const error = await api.getTask(created!.taskId, history.at(-1)).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (error) goneAt = Date.now();
      }
      expect(goneAt).toBeDefined();
      expect(goneAt! - Date.parse(created!.createdAt!)).toBeLessThan(3000);
    } finally {
      await session.close();
    }
  });

  it('refuses a task for a forbidden tool before sending anything', async () => {
    const session = await McpSession.connect({ url: receiver.url });
    try {
      const api = new TasksApi(session);
      const { tools } = await api.listTools();
      const echo = tools.find((t) => t.name === 'echo')!;
      let sent = 0;
      session.tap.subscribe((e) => e.direction === 'out' && e.method === 'tools/call' && sent++);
      await expect(api.createTask(echo, { message: 'hi' })).rejects.toThrow(/forbidden/);
      expect(sent).toBe(0);
    } finally {
      await session.close();
    }
  });

  it('refuses a plain call of a task-required tool with a JSON-RPC -32601 error, and runs it as a task', async () => {
    const session = await McpSession.connect({ url: receiver.url });
    try {
      const api = new TasksApi(session);
      const { tools } = await api.listTools();
      const slow = tools.find((t) => t.name === 'slow_job')!;
      expect(slow.taskSupport).toBe('required');
      const refusal = await session
        .request('tools/call', { name: 'slow_job', arguments: { durationMs: 0, steps: 1 } })
        .then(
          (result) => ({ result }),
          (error: unknown) => error,
        );
      // An isError result would be an answer, not the error 2025-11-25 asks for.
      expect(refusal).toMatchObject({ code: -32601 });
      expect(classifyError(refusal).code).toBe(-32601);
      const created = await api.createTask(slow, { durationMs: 0, steps: 1, pollIntervalMs: 100 });
      expect(created.value).toMatchObject({ status: 'working', shape: 'wrapped' });
    } finally {
      await session.close();
    }
  });

  it('flaky_job ends failed with its statusMessage and an isError result', async () => {
    const session = await McpSession.connect({ url: receiver.url });
    try {
      const api = new TasksApi(session);
      const { tools } = await api.listTools();
      const created = await api.createTask(
        tools.find((t) => t.name === 'flaky_job')!,
        { failAfterMs: 200, reason: 'disk full' },
      );
      const history = await followToEnd(api, created.value!);
      expect(history.at(-1)).toMatchObject({ status: 'failed', statusMessage: 'Failed: disk full' });
      const { value } = await api.getTaskResult(created.value!.taskId);
      expect(value.isError).toBe(true);
    } finally {
      await session.close();
    }
  });

  it('the tap sees every message with its HTTP status and latency', async () => {
    const session = await McpSession.connect({ url: receiver.url });
    try {
      const events: Array<{ kind: string; method?: string; httpStatus?: number; latencyMs?: number }> = [];
      session.tap.subscribe((e) => events.push(e));
      await new TasksApi(session).listTools();
      expect(events.map((e) => [e.kind, e.method])).toEqual([
        ['request', 'tools/list'],
        ['response', 'tools/list'],
      ]);
      expect(events[1]).toMatchObject({ httpStatus: 200 });
      expect(events[1]!.latencyMs).toBeGreaterThanOrEqual(0);
    } finally {
      await session.close();
    }
  });

  it('says when the receiver has forgotten the session', async () => {
    const own = await startDemoReceiver();
    const session = await McpSession.connect({ url: own.url });
    try {
      let lost = 0;
      session.onSessionLost = () => lost++;
      await own.receiver.close(); // the receiver drops every session, as a restart would
      const error = await new TasksApi(session).listTools().catch((e: unknown) => e);
      expect(classifyError(error).kind).toBe('session-lost');
      expect(lost).toBe(1);
    } finally {
      await session.close();
      await own.close();
    }
  });
});
