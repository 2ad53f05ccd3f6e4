import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createRecordedReceiver, stepsOf } from '../../src/cli/serve/recorded-receiver';
import type { Trace } from '../../src/engine/trace/schema';
import { stopAfterEach } from '../helpers/cleanups';
import { serveOnLoopback } from '../helpers/receivers';
import { repoRoot } from '../helpers/stdio';

/**
 * The shipped demo trace (2025-11-25) served in-process, and the official SDK clients against it: the
 * recorded statuses and result, the recorded pushes on the GET stream, the recorded question asked on
 * tasks/result and answered.
 */
const demo = JSON.parse(readFileSync(path.join(repoRoot, 'public/demo-trace.json'), 'utf8')) as Trace;
const recorded = (tool: string) => demo.tasks.find((t) => t.tool === tool)!;
const statusesOf = (tool: string) =>
  stepsOf(recorded(tool))
    .map((s) => s.status)
    .filter((s, i, all) => all[i - 1] !== s);

const later = stopAfterEach();

async function serve(options: { speed?: number; step?: boolean; maxTasks?: number } = {}) {
  const receiver = createRecordedReceiver(demo, { speed: options.speed ?? 8, ...options });
  const running = await serveOnLoopback(receiver.router, async () => receiver.close());
  later(running.close);
  return { receiver, url: running.url };
}

async function sdkClient(url: string, capabilities: Record<string, unknown> = {}) {
  const client = new Client({ name: 'serve-test', version: '1' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  later(() => client.close());
  return client;
}

/** Polls tasks/get at the receiver's pollInterval (the client's discipline, not a wait in the test). */
async function followStatuses(client: Client, taskId: string, first: string) {
  const seen = [first];
  let task: { status: string; pollInterval?: number } = { status: first, pollInterval: 100 };
  while (!['completed', 'failed', 'cancelled'].includes(task.status)) {
    await new Promise((r) => setTimeout(r, task.pollInterval ?? 100));
    task = await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);
    if (seen.at(-1) !== task.status) seen.push(task.status);
  }
  return seen;
}

describe('serve a 2025-11-25 recording', () => {
  it('runs slow_job for the SDK 1.x client: every recorded status in order, pushes on the GET stream, the result', async () => {
    const { url } = await serve();
    const client = await sdkClient(url);
    const pushed: string[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
      pushed.push(`${n.params.status}|${n.params.statusMessage ?? ''}`);
    });
    const created = await client.request(
      { method: 'tools/call', params: { name: 'slow_job', arguments: {}, task: {} } },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    // tasks/result blocks until the recording's end, as a 2025-11-25 receiver does.
    const result = await client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
    expect(result.content).toEqual(recorded('slow_job').result?.value.result?.content);
    expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId });
    const steps = stepsOf(recorded('slow_job')).slice(1);
    expect(pushed).toEqual(steps.map((s) => `${s.status}|${s.statusMessage ?? ''}`));
    const task = await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);
    expect(task.status).toBe('completed');
  });

  it('follows flaky_job by polling to its recorded failure and isError result', async () => {
    const { url } = await serve();
    const client = await sdkClient(url);
    const created = await client.request(
      { method: 'tools/call', params: { name: 'flaky_job', arguments: {}, task: {} } },
      CreateTaskResultSchema,
    );
    const seen = await followStatuses(client, created.task.taskId, created.task.status);
    expect(seen).toEqual(statusesOf('flaky_job'));
    const result = await client.request(
      { method: 'tasks/result', params: { taskId: created.task.taskId } },
      CallToolResultSchema,
    );
    expect(result.isError).toBe(true);
    expect(result.content).toEqual(recorded('flaky_job').result?.value.result?.content);
    await expect(
      client.request(
        { method: 'tasks/cancel', params: { taskId: created.task.taskId } },
        GetTaskResultSchema,
      ),
    ).rejects.toThrow(/already ended/);
  });

  it('asks the recorded question on tasks/result; the answer lets ask_user go on to its recorded result', async () => {
    const { url } = await serve();
    const client = await sdkClient(url, { elicitation: { form: {} } });
    const questions: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      questions.push(request.params);
      return { action: 'accept', content: { answer: 'teal', confident: true } };
    });
    const created = await client.request(
      { method: 'tools/call', params: { name: 'ask_user', arguments: {}, task: {} } },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    const result = await client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
    const asked = demo.inbox.find((e) => e.kind === 'asked');
    expect(asked?.kind === 'asked' && asked.request.params).toMatchObject({
      message: 'Which colour should the report use?',
    });
    expect(questions).toEqual([
      expect.objectContaining({
        message: 'Which colour should the report use?',
        _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
      }),
    ]);
    expect(result.content).toEqual([{ type: 'text', text: 'You answered: teal' }]);
  });

  it('waits at input_required until the question is answered', async () => {
    const { receiver, url } = await serve({ speed: 50 });
    const client = await sdkClient(url);
    const created = await client.request(
      { method: 'tools/call', params: { name: 'ask_user', arguments: {}, task: {} } },
      CreateTaskResultSchema,
    );
    const task = receiver.playback.get(created.task.taskId)!;
    const waiting = new Promise<void>((resolve) => {
      // At 50× the question can come before the create answer has reached this client: then it already waits.
      if (task.waiting.size > 0) {
        resolve();
        return;
      }
      const off = receiver.onEvent((e) => {
        if (e.type === 'asked' && e.task === task) {
          off();
          resolve();
        }
      });
    });
    await waiting;
    // Nobody holds a stream to carry the question: the task stays where the recording asked.
    const polled = await client.request(
      { method: 'tasks/get', params: { taskId: task.taskId } },
      GetTaskResultSchema,
    );
    expect(polled.status).toBe('input_required');
    expect(receiver.playback.ended(task)).toBe(false);
  });

  it('--step: a task moves to its next recorded status only when asked to', async () => {
    const { receiver, url } = await serve({ step: true });
    const client = await sdkClient(url);
    const created = await client.request(
      { method: 'tools/call', params: { name: 'flaky_job', arguments: {}, task: {} } },
      CreateTaskResultSchema,
    );
    const get = () =>
      client.request({ method: 'tasks/get', params: { taskId: created.task.taskId } }, GetTaskResultSchema);
    const steps = stepsOf(recorded('flaky_job'));
    expect((await get()).statusMessage).toBe(steps[0]!.statusMessage);
    for (const step of steps.slice(1)) {
      expect(receiver.step()).toBe(1);
      const now = await get();
      expect([now.status, now.statusMessage]).toEqual([step.status, step.statusMessage]);
    }
    expect(receiver.step()).toBe(0);
  });

  it('cancels a running task: tasks/result answers the cancel, not a result', async () => {
    const { url } = await serve({ step: true });
    const client = await sdkClient(url);
    const created = await client.request(
      { method: 'tools/call', params: { name: 'slow_job', arguments: {}, task: {} } },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    const waiting = client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema).then(
      () => 'a result',
      (error: Error) => error.message,
    );
    const cancelled = await client.request(
      { method: 'tasks/cancel', params: { taskId } },
      GetTaskResultSchema,
    );
    expect(cancelled.status).toBe('cancelled');
    expect(await waiting).toMatch(/was cancelled: it has no result/);
  });

  it('keeps at most maxTasks, dropping the oldest', async () => {
    const { receiver, url } = await serve({ step: true, maxTasks: 3 });
    const client = await sdkClient(url);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await client.request(
        { method: 'tools/call', params: { name: 'slow_job', arguments: {}, task: {} } },
        CreateTaskResultSchema,
      );
      ids.push(created.task.taskId);
    }
    expect(receiver.playback.size).toBe(3);
    await expect(
      client.request({ method: 'tasks/get', params: { taskId: ids[0] } }, GetTaskResultSchema),
    ).rejects.toThrow(/-32602/);
  });

  it("lists the session's tasks in one page, and refuses a cursor it never handed out (-32602)", async () => {
    const { url } = await serve({ step: true });
    const client = await sdkClient(url);
    const created = await client.request(
      { method: 'tools/call', params: { name: 'slow_job', arguments: {}, task: {} } },
      CreateTaskResultSchema,
    );
    const listed = await client.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
    expect(listed.tasks.map((t) => t.taskId)).toEqual([created.task.taskId]);
    expect(listed.nextCursor).toBeUndefined();
    await expect(
      client.request({ method: 'tasks/list', params: { cursor: 'bogus' } }, ListTasksResultSchema),
    ).rejects.toThrow(/-32602.*unknown cursor/);
  });

  it('lists the recorded tools to the SDK 2.x client, and says what it holds for anything else', async () => {
    const { url } = await serve();
    const client = new Client2({ name: 'serve-test-2', version: '1' });
    await client.connect(new Transport2(new URL(url)));
    later(() => client.close());
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'slow_job',
      'flaky_job',
      'variable_poll_job',
      'short_ttl_job',
      'ask_user',
    ]);
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(
      /Unknown tool nope\. This recording \(2025-11-25\) holds the tools slow_job/,
    );
  });

  it('refuses what a hostile client sends: a foreign Origin, a body that is not JSON, one over the limit', async () => {
    const { url } = await serve();
    const post = (headers: Record<string, string>, body: string) =>
      fetch(url, {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', ...headers },
        body,
      });
    const foreign = await post(
      { 'content-type': 'application/json', origin: 'https://evil.example' },
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    );
    expect(foreign.status).toBe(403);
    const plain = await post({ 'content-type': 'text/plain' }, '{"jsonrpc":"2.0","id":1,"method":"ping"}');
    expect(plain.status).toBe(415);
    const broken = await post({ 'content-type': 'application/json' }, '{"jsonrpc":');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the body is not valid JSON' },
    });
    const huge = await post({ 'content-type': 'application/json' }, `"${'x'.repeat(2 * 1024 * 1024)}"`);
    expect(huge.status).toBe(413);
    const local = await post(
      { 'content-type': 'application/json', origin: 'http://localhost:5173' },
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    );
    expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(await local.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });
});
