import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Batch, ObservedNews } from '../../src/engine/messages';
import type { Normalised, TaskResultSnapshot } from '../../src/mcp';
import { applyTaskChanges } from '../../src/tracker/task-changes';
import { createTasksStore } from '../../src/tracker/task-store';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { engineOverChannel } from '../helpers/engine-channel';
import { extTasksSession } from '../helpers/ext-tasks-session';
import { startDemoReceiver2026 } from '../helpers/receiver-2026';
import { startObservedServer } from '../helpers/observed-server';
import { recordingFetch } from '../helpers/recording-fetch';
import { waitFor } from '../helpers/wait';

const later = stopAfterEach();

/** A real SDK 1.32 client on the demo receiver, its traffic recorded as the proxy would see it pass. */
async function sdkClient(url: string, name: string, fetch: typeof globalThis.fetch) {
  const client = new Client({ name, version: '1' }, { capabilities: { elicitation: { form: {} } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch }));
  later(() => client.close());
  return client;
}

async function slowJob(client: Client, label: string) {
  // The SDK calls a tool as a task once tools/list said it runs as one.
  await client.listTools();
  const stream = client.experimental.tasks.callToolStream({
    name: 'slow_job',
    arguments: { durationMs: 600, steps: 2, pollIntervalMs: 150, label },
  });
  for await (const message of stream) if (message.type === 'error') throw message.error;
}

/** The demo receiver, a recording tap in front of it, and the observed API serving what passed as source "demo". */
async function observedDemo() {
  const demo = await demoFor(later);
  const tap = recordingFetch();
  const server = await startObservedServer({ name: 'demo', upstream: demo.url, messages: tap.messages });
  later(server.close);
  return { demo, tap, server, route: { url: server.url, token: server.token } };
}

/** An engine over the channel, with what its batches said per connection id, as the page's stores keep it. */
function observingEngine() {
  const engine = engineOverChannel({ history: async () => null });
  later(() => engine.close());
  const stores = new Map<number, ReturnType<typeof createTasksStore>>();
  const results = new Map<string, Normalised<TaskResultSnapshot>>();
  const observed: ObservedNews[] = [];
  engine.bridge.onBatch((batches: Batch[]) => {
    for (const batch of batches) {
      if (batch.tasks) {
        let store = stores.get(batch.connectionId);
        if (!store) stores.set(batch.connectionId, (store = createTasksStore()));
        applyTaskChanges(store, batch.tasks);
      }
      for (const [taskId, result] of batch.results) results.set(taskId, result);
      if (batch.connection?.observed) observed.push(batch.connection.observed);
    }
  });
  const tasksOf = (connectionId: number) => [...(stores.get(connectionId)?.getState().tasks.values() ?? [])];
  const traffic = (connectionId: number) =>
    engine.batches.flatMap((b) => b.traffic).filter((e) => e.connectionId === connectionId);
  return { engine, results, observed, tasksOf, traffic, news: () => observed.at(-1) };
}

describe('an observed client session through the engine', () => {
  it("a real client's task flow, read from the observed stream as it passes: the task with its polls, statuses, result and traffic", async () => {
    const { demo, tap, route } = await observedDemo();
    const client = await sdkClient(demo.url, 'first', tap.fetch);
    const { engine, results, tasksOf, traffic, news } = observingEngine();
    const reply = await engine.bridge.request({
      type: 'observe',
      connectionId: 1,
      source: 'demo',
      server: route,
    });
    expect(reply).toEqual({ ok: true, source: { name: 'demo', kind: 'http', upstream: demo.url } });
    // The client runs while the page watches: the task appears and grows as the messages pass.
    await slowJob(client, 'watched');
    await waitFor(() => tasksOf(1).some((t) => t.result.state === 'fetched'), 10_000);
    const task = tasksOf(1)[0]!;
    expect(tasksOf(1)).toHaveLength(1);
    expect(task).toMatchObject({
      tool: 'slow_job',
      origin: 'created',
      status: 'completed',
      lifecycle: 'terminal',
    });
    expect(task.call?.args).toMatchObject({ label: 'watched' });
    expect(task.pollCount).toBeGreaterThan(1);
    const statuses = task.entries.flatMap((e) => (e.kind === 'observation' ? [e.status] : []));
    expect(statuses).toContain('working');
    expect(statuses.at(-1)).toBe('completed');
    await waitFor(() => results.has(task.taskId), 5_000);
    expect(JSON.stringify(results.get(task.taskId))).toContain('watched');

    expect(engine.health()).toMatchObject({
      status: 'connected',
      era: '2025-11-25',
      server: { name: 'taskscope-demo' },
    });
    expect(news()).toMatchObject({
      name: 'demo',
      sessions: [{ label: 'first 1', era: '2025-11-25', tasks: 1 }],
    });
    expect(news()?.selected).toBe(news()?.sessions[0]?.key);
    // The client's own session id, as the receiver card shows a session.
    expect(`session:${engine.health()?.sessionId}`).toBe(news()?.selected);

    // Its traffic as the log's rows: the client's requests out, the server's answers in, paired, with HTTP facts.
    const rows = traffic(1);
    const call = rows.find((e) => e.direction === 'out' && e.method === 'tools/call');
    const answer = rows.find((e) => e.requestSeq === call?.seq);
    expect(answer).toMatchObject({
      direction: 'in',
      kind: 'response',
      method: 'tools/call',
      http: { status: 200 },
    });
    expect(rows.filter((e) => e.direction === 'out' && e.method === 'tasks/get').length).toBe(task.pollCount);

    // The client judged by the client rules as it goes: the SDK client breaks none, and its polls were judged.
    await waitFor(
      () =>
        news()?.clientCard?.rules.some((r) => r.id === 'client-poll-cadence' && r.verdict === 'pass') ===
        true,
      5_000,
    );
    const card = news()?.clientCard;
    expect(card?.rules.filter((r) => r.verdict === 'fail' || r.verdict === 'warn')).toEqual([]);
    expect(card?.rules.every((r) => r.side === 'client')).toBe(true);
  }, 30_000);

  it('two client sessions told apart: the newest shown, the other when the page picks it', async () => {
    const { demo, tap, route } = await observedDemo();
    await slowJob(await sdkClient(demo.url, 'older', tap.fetch), 'one');
    await slowJob(await sdkClient(demo.url, 'newer', tap.fetch), 'two');
    const { engine, tasksOf, news } = observingEngine();
    await engine.bridge.request({ type: 'observe', connectionId: 1, source: 'demo', server: route });
    await waitFor(() => tasksOf(1).some((t) => t.result.state === 'fetched'), 10_000);
    expect(tasksOf(1).map((t) => t.call?.args.label)).toEqual(['two']);
    expect(news()?.sessions.map((s) => s.label)).toEqual(['newer 1', 'older 1']);
    const older = news()?.sessions[1]?.key;
    expect(news()?.selected).toBe(news()?.sessions[0]?.key);

    const picked = await engine.bridge.request({
      type: 'observe',
      connectionId: 2,
      source: 'demo',
      session: older,
      server: route,
    });
    expect(picked.ok).toBe(true);
    await waitFor(() => tasksOf(2).some((t) => t.result.state === 'fetched'), 10_000);
    expect(tasksOf(2).map((t) => t.call?.args.label)).toEqual(['one']);
    expect(news()?.selected).toBe(older);
  }, 30_000);

  it('passive: nothing that would reach a receiver is done; a cut stream reads on from the last message read', async () => {
    const { demo, tap, server, route } = await observedDemo();
    const client = await sdkClient(demo.url, 'watched', tap.fetch);
    await slowJob(client, 'before');
    const { engine, tasksOf, traffic } = observingEngine();
    await engine.bridge.request({ type: 'observe', connectionId: 1, source: 'demo', server: route });
    await waitFor(() => tasksOf(1).some((t) => t.result.state === 'fetched'), 10_000);
    const taskId = tasksOf(1)[0]!.taskId;

    const tools = await client.listTools();
    const tool = { name: 'slow_job', inputSchema: tools.tools[0]!.inputSchema } as never;
    expect(await engine.bridge.request({ type: 'run', tool, args: {} })).toMatchObject({
      ok: false,
      error: { kind: 'unsupported', message: expect.stringMatching(/observed/) },
    });
    expect(await engine.bridge.request({ type: 'cancel', taskId })).toMatchObject({ kind: 'unsupported' });
    expect(await engine.bridge.request({ type: 'track', taskId })).toBe(false);
    expect(await engine.bridge.request({ type: 'pollNow', taskId })).toBeNull();
    expect(await engine.bridge.request({ type: 'checkReceiver' })).toMatchObject({ ok: false });
    expect(await engine.bridge.request({ type: 'listTools' })).toEqual({ tools: [], warnings: [] });

    server.cut();
    await slowJob(client, 'after');
    await waitFor(() => tasksOf(1).filter((t) => t.result.state === 'fetched').length === 2, 10_000);
    expect(server.afters.length).toBeGreaterThan(1);
    expect(server.afters.at(-1)).toBeGreaterThan(0);
    // Every message once: none read twice after the cut, none sent by Taskscope in the client's session.
    const outs = traffic(1).filter((e) => e.direction === 'out');
    expect(new Set(outs.map((e) => e.seq)).size).toBe(outs.length);
    expect(outs.filter((e) => e.method === 'tools/call')).toHaveLength(2);
  }, 30_000);

  it("the server's question to the client is shown with the client's answer, never answerable here", async () => {
    const { demo, tap, route } = await observedDemo();
    const client = await sdkClient(demo.url, 'asked', tap.fetch);
    client.setRequestHandler(ElicitRequestSchema, () => ({
      action: 'accept',
      content: { answer: 'teal', confident: true },
    }));
    const created = await client.request(
      { method: 'tools/call', params: { name: 'ask_user', arguments: {}, task: {} } },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    await client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
    const { engine, tasksOf } = observingEngine();
    await engine.bridge.request({ type: 'observe', connectionId: 1, source: 'demo', server: route });
    await waitFor(() => tasksOf(1).some((t) => t.result.state === 'fetched'), 10_000);
    const inbox = engine.batches.flatMap((b) => b.inbox);
    const asked = inbox.find((e) => e.kind === 'asked');
    expect(asked).toMatchObject({
      kind: 'asked',
      request: { method: 'elicitation/create', relatedTaskId: taskId, connectionId: 1 },
    });
    expect(inbox.find((e) => e.kind === 'settled')).toMatchObject({
      state: 'answered',
      outcome: 'answered by the client: accept',
      reply: { result: { action: 'accept', content: { answer: 'teal' } } },
    });
    const inputs = tasksOf(1)[0]!.entries.filter((e) => e.kind === 'input');
    expect(inputs.map((e) => e.kind === 'input' && e.phase)).toEqual(['asked', 'answered']);
    const key = asked?.kind === 'asked' ? asked.request.key : '';
    expect(await engine.bridge.request({ type: 'answer', key, outcome: 'x', reply: { result: {} } })).toBe(
      false,
    );
  }, 30_000);

  it('a 2026-07-28 client (SDK 2.x with ext-tasks): its session named by its clientInfo, the result read from the poll that saw the end', async () => {
    const receiver = await startDemoReceiver2026();
    later(receiver.close);
    const tap = recordingFetch();
    const server = await startObservedServer({
      name: 'demo',
      upstream: receiver.url,
      messages: tap.messages,
    });
    later(server.close);
    const session = await extTasksSession(receiver.url, 'demo', tap.fetch);
    later(session.close);
    const slow = await session.tasks.callTool('slow_job', { durationMs: 400, steps: 2, pollIntervalMs: 150 });
    expect((await slow.settle()).outcome.status).toBe('completed');
    const { engine, tasksOf, news } = observingEngine();
    await engine.bridge.request({
      type: 'observe',
      connectionId: 1,
      source: 'demo',
      server: { url: server.url, token: server.token },
    });
    await waitFor(() => tasksOf(1).some((t) => t.result.state === 'fetched'), 10_000);
    expect(tasksOf(1).find((t) => t.tool === 'slow_job')).toMatchObject({
      status: 'completed',
      lifecycle: 'terminal',
    });
    const shown = news()?.sessions.find((s) => s.key === news()?.selected);
    expect(shown).toMatchObject({ label: 'taskscope-test 0.0.0', era: '2026-07-28' });
    expect(shown?.tasks).toBeGreaterThan(0);
    expect(engine.health()).toMatchObject({ status: 'connected', era: '2026-07-28' });
  }, 30_000);

  it('refuses an unknown source and a wrong token, and says why', async () => {
    const { route } = await observedDemo();
    const { engine } = observingEngine();
    expect(
      await engine.bridge.request({ type: 'observe', connectionId: 1, source: 'nope', server: route }),
    ).toMatchObject({ ok: false, error: { message: expect.stringMatching(/no source named "nope".*demo/) } });
    expect(
      await engine.bridge.request({
        type: 'observe',
        connectionId: 1,
        source: 'demo',
        server: { ...route, token: 'wrong' },
      }),
    ).toMatchObject({ ok: false, error: { httpStatus: 403, message: 'missing or wrong token' } });
  });
});
