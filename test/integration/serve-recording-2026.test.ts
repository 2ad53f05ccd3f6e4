import { beforeAll, describe, expect, it } from 'vitest';
import { createRecordedReceiver, stepsOf } from '../../src/cli/serve/recorded-receiver';
import type { Trace } from '../../src/engine/trace/schema';
import { extTasksSession } from '../helpers/ext-tasks-session';
import { runInProcess } from '../helpers/run-command';
import { startRecorder } from '../helpers/record-trace';
import { startDemoReceiver2026 } from '../helpers/receiver-2026';
import { stopAfterEach } from '../helpers/cleanups';
import { serveOnLoopback } from '../helpers/receivers';

/**
 * A 2026-07-28 recording: the engine records slow_job, flaky_job and ask_user (answered "teal") against the
 * 2026 demo receiver, then `serve` plays the trace back, and the SDK 2.x client with ext-tasks (and a raw
 * client) follows it: the recorded statuses, result, error and question; the pushes on subscriptions/listen.
 */
type Json = Record<string, unknown>;
const V2026 = '2026-07-28';
const EXT = 'io.modelcontextprotocol/tasks';
let trace: Trace;

beforeAll(async () => {
  const rec = await startRecorder(() => startDemoReceiver2026());
  try {
    const asked = rec.asked();
    await rec.run('slow_job', { durationMs: 900, steps: 3, pollIntervalMs: 200, label: 'served' });
    await rec.run('flaky_job', { failAfterMs: 500 });
    await rec.run('ask_user', {});
    const request = await asked;
    await rec.engine.bridge.request({
      type: 'answer',
      key: request.key,
      outcome: 'accept',
      reply: { result: { action: 'accept', content: { answer: 'teal' } } },
    });
    await rec.allEnded(15_000);
    trace = JSON.parse(JSON.stringify(rec.trace())) as Trace;
  } finally {
    await rec.close();
  }
}, 30_000);

const later = stopAfterEach();

async function serve(options: { speed?: number; step?: boolean } = {}) {
  const receiver = createRecordedReceiver(trace, { speed: options.speed ?? 4, ...options });
  const running = await serveOnLoopback(receiver.router, async () => receiver.close());
  later(running.close);
  return { receiver, url: running.url };
}

const recorded = (tool: string) => trace.tasks.find((t) => t.tool === tool)!;

let nextId = 1;
/** One 2026-07-28 request as a client frames it: the envelope in `_meta`, the headers from the body. */
async function rpc(url: string, method: string, params: Json = {}) {
  const id = nextId++;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': V2026,
      'Mcp-Method': method,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': V2026,
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } },
        },
      },
    }),
  });
  return { res, id };
}

async function call(url: string, method: string, params: Json = {}): Promise<Json> {
  const { res } = await rpc(url, method, params);
  const message = (await res.json()) as { result?: Json; error?: Json };
  if (message.error) throw new Error(JSON.stringify(message.error));
  return message.result!;
}

/** The data of each SSE event of a whole stream. */
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

/** `seen` is `statuses` with some left out: the same order, nothing that was not recorded. */
function expectWithin(seen: string[], statuses: string[]) {
  let at = 0;
  for (const status of seen) {
    at = statuses.indexOf(status, at);
    expect(at, `${seen.join(' → ')} within ${statuses.join(' → ')}`).toBeGreaterThanOrEqual(0);
  }
}

describe('serve a 2026-07-28 recording', () => {
  it('discovers as the recorded receiver and lists its recorded tools', async () => {
    const { url } = await serve();
    const discovered = await call(url, 'server/discover');
    expect(discovered).toMatchObject({
      supportedVersions: [V2026],
      capabilities: { extensions: { [EXT]: {} } },
      resultType: 'complete',
    });
    const { tools } = (await call(url, 'tools/list')) as { tools: Array<{ name: string }> };
    expect(tools.map((t) => t.name)).toEqual(['slow_job', 'flaky_job', 'ask_user']);
    const { res } = await rpc(url, 'initialize', { protocolVersion: '2025-11-25' });
    expect(((await res.json()) as { error: Json }).error).toMatchObject({ code: -32022 });
  });

  it('runs the recorded tools for the SDK 2.x client (ext-tasks): result, error and the question answered', async () => {
    const { url } = await serve();
    const s = await extTasksSession(url, 'serve-2026');
    later(s.close);
    expect(s.client.getProtocolEra()).toBe('modern');
    const slow = await (await s.tasks.callTool('slow_job', {})).settle();
    expect(slow.outcome.status).toBe('completed');
    expect(slow.outcome.status === 'completed' && slow.outcome.result).toMatchObject({
      content: recorded('slow_job').result?.value.result?.content,
    });
    const flaky = await (await s.tasks.callTool('flaky_job', {})).settle();
    expect(flaky.outcome).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'flaky_job failed: upstream dependency timed out' },
    });
    const seen: string[] = [];
    const ask = await (
      await s.tasks.callTool('ask_user', {})
    ).settle({
      onEvent: (event) => {
        if (event.type === 'task' && seen.at(-1) !== event.task.status) seen.push(event.task.status);
      },
    });
    expect(ask.outcome.status === 'completed' && ask.outcome.result).toMatchObject({
      content: [{ type: 'text', text: 'You answered: teal' }],
    });
    // What the client observed is the recording's statuses, in order, its question included.
    expect(seen).toContain('input_required');
    expectWithin(
      seen,
      stepsOf(recorded('ask_user')).map((step) => step.status),
    );
  });

  it('goes through recorded statuses in order (polled) and waits at input_required for tasks/update', async () => {
    const { url } = await serve();
    const created = await call(url, 'tools/call', { name: 'ask_user', arguments: {} });
    expect(created.resultType).toBe('task');
    const taskId = String(created.taskId);
    let task = created;
    const seen = [String(created.status)];
    while (task.status !== 'input_required') {
      await new Promise((r) => setTimeout(r, Number(task.pollIntervalMs)));
      task = await call(url, 'tasks/get', { taskId });
      if (seen.at(-1) !== task.status) seen.push(String(task.status));
    }
    const requests = task.inputRequests as Record<string, { method: string; params: Json }>;
    const [key, question] = Object.entries(requests)[0]!;
    expect(question).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'Which colour should the report use?' },
    });
    // Nothing moves while the question is open.
    expect((await call(url, 'tasks/get', { taskId })).status).toBe('input_required');
    await call(url, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: {} } } });
    while (!['completed', 'failed', 'cancelled'].includes(String(task.status))) {
      await new Promise((r) => setTimeout(r, Number(task.pollIntervalMs)));
      task = await call(url, 'tasks/get', { taskId });
      if (seen.at(-1) !== task.status) seen.push(String(task.status));
    }
    // Polls may miss a short status (the pushes below see every one): what they saw is the recording's, in order.
    expect(seen[0]).toBe('working');
    expect(seen.at(-1)).toBe('completed');
    expectWithin(
      seen,
      stepsOf(recorded('ask_user')).map((step) => step.status),
    );
    expect(task.result).toMatchObject({ content: [{ type: 'text', text: 'You answered: teal' }] });
  });

  it('streams the recorded pushes on subscriptions/listen, every status to the end', async () => {
    const { url } = await serve();
    const created = await call(url, 'tools/call', { name: 'slow_job', arguments: {} });
    const taskId = String(created.taskId);
    const { res, id } = await rpc(url, 'subscriptions/listen', { notifications: { taskIds: [taskId] } });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    // The stream ends by itself once the task has ended: its whole body is read.
    const messages = sseMessages(await res.text());
    expect(messages[0]).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: [taskId] } },
    });
    const pushed = messages
      .filter((m) => m.method === 'notifications/tasks')
      .map((m) => `${String((m.params as Json).status)}|${String((m.params as Json).statusMessage ?? '')}`);
    const steps = stepsOf(recorded('slow_job'));
    expect(pushed).toEqual(steps.map((s) => `${s.status}|${s.statusMessage ?? ''}`));
    expect(messages.at(-1)).toMatchObject({ id, result: { resultType: 'complete' } });
  });

  it('--step: moves on only when asked, and a cancel ends the task', async () => {
    const { receiver, url } = await serve({ step: true });
    const created = await call(url, 'tools/call', { name: 'slow_job', arguments: {} });
    const taskId = String(created.taskId);
    const steps = stepsOf(recorded('slow_job'));
    expect((await call(url, 'tasks/get', { taskId })).statusMessage).toBe(steps[0]!.statusMessage);
    expect(receiver.step()).toBe(1);
    expect((await call(url, 'tasks/get', { taskId })).statusMessage).toBe(steps[1]!.statusMessage);
    await call(url, 'tasks/cancel', { taskId });
    expect((await call(url, 'tasks/get', { taskId })).status).toBe('cancelled');
    expect(receiver.step()).toBe(0);
  });

  it("is followed by Taskscope's own engine (taskscope watch) to its recorded failure", async () => {
    const { url } = await serve();
    const run = await runInProcess(['watch', url, '--tool', 'flaky_job']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^flaky_job started task \S+$/m);
    expect(run.stdout).toMatch(/ {2}failed: Failed: upstream dependency timed out/m);
    expect(run.stdout).toContain('flaky_job failed: upstream dependency timed out');
  });
});
