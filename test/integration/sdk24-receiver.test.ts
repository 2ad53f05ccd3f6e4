import { afterEach, describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import { startSdk24Receiver, type Sdk24Receiver, type Sdk24ReceiverOptions } from '../helpers/sdk24-receiver';
import { engineOverChannel } from '../helpers/engine-channel';
import { extTasksSession as openExtTasksSession } from '../helpers/ext-tasks-session';
import { waitFor } from '../helpers/wait';

/**
 * The engine against a receiver the demo code did not write: server 2.4 with tasks/* registered by hand in
 * test/helpers/sdk24-receiver.ts, strict and dual-era, cross-checked with the ext-tasks client.
 */
const settings = { paused: false, minPollIntervalMs: 0 };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Engine = ReturnType<typeof engineOverChannel>;

async function receiver(options: Sdk24ReceiverOptions): Promise<Sdk24Receiver> {
  const started = await startSdk24Receiver(options);
  cleanups.push(() => started.close());
  return started;
}

async function engineOn(url: string, era?: 'auto' | '2025-11-25' | '2026-07-28') {
  const e = engineOverChannel({ history: async () => null });
  cleanups.push(() => e.close());
  const reply = await e.bridge.request({ type: 'connect', connectionId: 1, url, headers: {}, settings, era });
  return { e, reply };
}

async function tool(e: Engine, name: string): Promise<ToolInfo> {
  const { tools } = await e.bridge.request({ type: 'listTools' });
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

async function run(e: Engine, name: string, args: Record<string, unknown>): Promise<string> {
  const outcome = await e.bridge.request({ type: 'run', tool: await tool(e, name), args });
  if (!outcome.ok || outcome.taskId === undefined)
    throw new Error(outcome.ok ? 'answered at once' : outcome.error.message);
  return outcome.taskId;
}

const resultText = (e: Engine, taskId: string) =>
  JSON.stringify(e.batches.flatMap((b) => b.results).find(([id]) => id === taskId)?.[1]?.value.result);

const fetched = (e: Engine, taskId: string) =>
  e.tasks.getState().tasks.get(taskId)?.result.state === 'fetched';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

describe('a strict server 2.4 receiver (2026-07-28 only)', () => {
  it('is found to speak 2026-07-28; a task is polled at its pollIntervalMs and its result read from the completing tasks/get', async () => {
    const r = await receiver({ mode: 'strict' });
    const { e, reply } = await engineOn(r.url);
    expect(reply.ok).toBe(true);
    expect(e.health()).toMatchObject({ status: 'connected', era: '2026-07-28', detectedBy: 'discover' });
    expect(r.arrivals.map((a) => a.method)).not.toContain('initialize');

    // Working for three polls, completed at the fourth: several polls however slow the machine.
    const taskId = await run(e, 'sleep_task', { ms: 60_000, pollIntervalMs: 250, workingPolls: 3 });
    await waitFor(() => fetched(e, taskId), 10_000);
    expect(e.tasks.getState().tasks.get(taskId)?.status).toBe('completed');
    expect(resultText(e, taskId)).toContain('Slept 60000 ms');

    // Counted at the receiver: several polls, the first too none sooner than the 250 ms asked for (up to 25 ms
    // of network jitter allowed).
    const call = r.arrivals.find((a) => a.method === 'tools/call')!.at;
    const gets = r.arrivals.filter((a) => a.method === 'tasks/get' && a.taskId === taskId).map((a) => a.at);
    expect(gets.length).toBe(4);
    const times = [call, ...gets];
    const gaps = gets.map((at, i) => at - times[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(225);
    expect(e.tasks.getState().tasks.get(taskId)?.pollCount).toBe(gets.length);
    // The result came with the one tasks/get that saw the task end: nothing else was asked for it, then or
    // later (a second task runs for several of the first one's intervals meanwhile).
    expect(r.served(taskId).filter((s) => TERMINAL.has(s))).toEqual(['completed']);
    const second = await run(e, 'sleep_task', { ms: 800, pollIntervalMs: 250 });
    await waitFor(() => fetched(e, second), 10_000);
    expect(r.served(taskId).filter((s) => TERMINAL.has(s))).toEqual(['completed']);
    expect(r.served(taskId).at(-1)).toBe('completed');
    expect(r.arrivals.filter((a) => a.taskId === taskId).every((a) => a.method === 'tasks/get')).toBe(true);
    expect(r.arrivals.map((a) => a.method)).not.toContain('tasks/result');
  }, 20_000);

  it('cancel: acknowledged (no status, no warning); the next poll, at the interval, shows it cancelled', async () => {
    const r = await receiver({ mode: 'strict' });
    const { e } = await engineOn(r.url);
    const taskId = await run(e, 'sleep_task', { ms: 30_000, pollIntervalMs: 400 });
    expect(await e.bridge.request({ type: 'cancel', taskId })).toBeNull();
    expect(r.task(taskId)?.status).toBe('cancelled');
    const entries = () => e.tasks.getState().tasks.get(taskId)?.entries ?? [];
    const cancel = entries().find((x) => x.kind === 'observation' && x.source === 'cancel');
    expect(cancel).toMatchObject({ status: null, warnings: [] });
    await waitFor(() => e.tasks.getState().tasks.get(taskId)?.status === 'cancelled', 5000);
    // No extra request after the acknowledgement (src/mcp/tasks-api-2026.ts cancelTask): the poll that shows it
    // is the one due at the task's own pollIntervalMs, the same discipline as for 2025-11-25.
    const forTask = r.arrivals.filter((a) => a.taskId === taskId);
    expect(forTask.map((a) => a.method)).toEqual(['tasks/cancel', 'tasks/get']);
    const call = r.arrivals.find((a) => a.method === 'tools/call')!;
    expect(forTask[1]!.at - call.at).toBeGreaterThanOrEqual(350);
    expect(r.served(taskId)).toEqual(['cancelled']);
  }, 15_000);

  it('cancel on a receiver that goes on: the task is shown working as it stands, and its result still arrives', async () => {
    const r = await receiver({ mode: 'strict', honourCancel: false });
    const { e } = await engineOn(r.url);
    // Working for five polls (a second at least, and longer on a busy machine, as polls slow down with it):
    // the cancel, sent right after the create, comes before them.
    const taskId = await run(e, 'sleep_task', { ms: 60_000, pollIntervalMs: 200, workingPolls: 5 });
    expect(await e.bridge.request({ type: 'cancel', taskId })).toBeNull();
    await waitFor(() => r.arrivals.some((a) => a.method === 'tasks/cancel'), 3000);
    await waitFor(() => fetched(e, taskId), 10_000);
    // The first poll after the acknowledgement found it still working, and the engine showed it so.
    const forTask = r.arrivals.filter((a) => a.taskId === taskId).map((a) => a.method);
    const pollsBefore = forTask.slice(0, forTask.indexOf('tasks/cancel')).length;
    expect(r.served(taskId)[pollsBefore]).toBe('working');
    const after = e.tasks.getState().tasks.get(taskId)!.entries;
    const cancelAt = after.findIndex((x) => x.kind === 'observation' && x.source === 'cancel');
    expect(after.slice(cancelAt + 1).find((x) => x.kind === 'observation')).toMatchObject({
      source: 'poll',
      status: 'working',
    });
    expect(e.tasks.getState().tasks.get(taskId)?.status).toBe('completed');
    expect(resultText(e, taskId)).toContain('Slept 60000 ms');
    const entries = e.tasks.getState().tasks.get(taskId)!.entries;
    expect(entries.find((x) => x.kind === 'observation' && x.source === 'cancel')).toMatchObject({
      status: null,
      warnings: [],
    });
  }, 15_000);

  it('an input round: the question reaches the inbox once, the answer goes back with tasks/update, the task completes', async () => {
    const r = await receiver({ mode: 'strict' });
    const { e } = await engineOn(r.url);
    const taskId = await run(e, 'ask_once', { question: 'Which colour?' });
    const asked = () => e.batches.flatMap((b) => b.inbox).filter((i) => i.kind === 'asked');
    await waitFor(() => asked().length > 0, 10_000);
    // More polls see the same key still outstanding: it is not asked again.
    const seen = r.served(taskId).length;
    await waitFor(() => r.served(taskId).length >= seen + 3, 5000);
    expect(asked()).toHaveLength(1);
    const question = asked()[0]!;
    if (question.kind !== 'asked') throw new Error('not asked');
    expect(question.request.relatedTaskId).toBe(taskId);
    expect(JSON.stringify(question.request.params)).toContain('Which colour?');
    const answered = await e.bridge.request({
      type: 'answer',
      key: question.request.key,
      outcome: 'accept',
      reply: { result: { action: 'accept', content: { answer: 'teal' } } },
    });
    expect(answered).toBe(true);
    await waitFor(() => fetched(e, taskId), 10_000);
    expect(resultText(e, taskId)).toContain('You answered: teal');
    expect(r.arrivals.filter((a) => a.method === 'tasks/update' && a.taskId === taskId)).toHaveLength(1);
  }, 20_000);

  it("a completed task's result without resultType (the spec's examples) is read as well", async () => {
    const r = await receiver({ mode: 'strict', innerResultType: false });
    const { e } = await engineOn(r.url);
    const taskId = await run(e, 'sleep_task', { ms: 200, pollIntervalMs: 100 });
    await waitFor(() => fetched(e, taskId), 10_000);
    expect(e.tasks.getState().tasks.get(taskId)?.status).toBe('completed');
    expect(resultText(e, taskId)).toContain('Slept 200 ms');
    // The form is really the bare one: ext-tasks' client, which wants resultType there, refuses it.
    const s = await extTasksSession(r.url);
    const theirs = await s.tasks.callTool('sleep_task', { ms: 200, pollIntervalMs: 100 });
    expect((await theirs.settle()).outcome.status).toBe('failed');
  }, 15_000);
});

describe('a dual-era server 2.4 receiver (the SDK default)', () => {
  it('auto speaks 2026-07-28 to it, where its tasks are, and a task runs to its result', async () => {
    const r = await receiver({ mode: 'dual' });
    const { e } = await engineOn(r.url);
    expect(e.health()).toMatchObject({ status: 'connected', era: '2026-07-28', detectedBy: 'discover' });
    const taskId = await run(e, 'sleep_task', { ms: 400, pollIntervalMs: 100 });
    await waitFor(() => fetched(e, taskId), 10_000);
    expect(resultText(e, taskId)).toContain('Slept 400 ms');
    expect(r.arrivals.map((a) => a.method)).not.toContain('initialize');
  }, 15_000);

  it('forced to 2025-11-25 it connects by initialize, every tool says no task, and a plain call answers inline', async () => {
    const r = await receiver({ mode: 'dual' });
    const { e, reply } = await engineOn(r.url, '2025-11-25');
    expect(reply.ok).toBe(true);
    expect(e.health()).toMatchObject({ status: 'connected', era: '2025-11-25', detectedBy: 'forced' });
    expect(r.arrivals.map((a) => a.method)).toContain('initialize');
    const { tools } = await e.bridge.request({ type: 'listTools' });
    expect(tools.map((t) => t.name).sort()).toEqual(['ask_once', 'sleep_task']);
    expect(tools.every((t) => t.taskSupport === 'forbidden')).toBe(true);
    const plain = await e.bridge.request({
      type: 'callPlain',
      tool: await tool(e, 'sleep_task'),
      args: { ms: 50 },
    });
    expect(plain.ok).toBe(true);
    expect(JSON.stringify(plain)).toContain('Slept 50 ms');
    expect(e.tasks.getState().order).toHaveLength(0);
  }, 15_000);

  it('a 2025 side that still answers a bare {task} is refused by server 2.4 itself, and said so', async () => {
    const r = await receiver({ mode: 'dual', legacyTasks: 'bare' });
    const { e } = await engineOn(r.url, '2025-11-25');
    const sleep = await tool(e, 'sleep_task');
    expect(sleep.taskSupport).toBe('optional');
    const outcome = await e.bridge.request({ type: 'run', tool: sleep, args: { ms: 50 } });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.message).toMatch(/refused its own task result/);
    expect(outcome.error.message).not.toMatch(/rejected the parameters/);
    expect(outcome.error.detail).toMatch(/content is required when the body carries 'task'/);
  }, 15_000);

  it("on 2026-07-28, a tool result server 2.4 refuses on the way out is said as the receiver's fault, not the arguments'", async () => {
    const r = await receiver({ mode: 'strict', bareOn2026: true });
    const { e } = await engineOn(r.url, 'auto');
    const outcome = await e.bridge.request({
      type: 'run',
      tool: await tool(e, 'sleep_task'),
      args: { ms: 50 },
    });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe(-32602);
    expect(outcome.error.message).toMatch(/^The receiver's own SDK refused the result its tool returned/);
    expect(outcome.error.message).not.toMatch(/rejected the parameters/);
    expect(e.tasks.getState().order).toHaveLength(0);
  }, 15_000);
});

/** The ext-tasks client on a receiver, closed with the test. */
async function extTasksSession(url: string) {
  const session = await openExtTasksSession(url, 'sdk24');
  cleanups.push(() => session.close());
  return session;
}

const textOf = (result: unknown) => (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;

describe('cross-checked with the ext-tasks client on the same receiver', () => {
  for (const mode of ['strict', 'dual'] as const) {
    it(`${mode}: the same terminal status and result text for sleep_task and ask_once`, async () => {
      const r = await receiver({ mode });
      const s = await extTasksSession(r.url);
      const { e } = await engineOn(r.url);

      const theirs = await (await s.tasks.callTool('sleep_task', { ms: 300, pollIntervalMs: 50 })).settle();
      const ours = await run(e, 'sleep_task', { ms: 300, pollIntervalMs: 50 });
      await waitFor(() => fetched(e, ours), 10_000);
      expect(theirs.outcome.status).toBe('completed');
      expect(e.tasks.getState().tasks.get(ours)?.status).toBe(theirs.outcome.status);
      const theirText = theirs.outcome.status === 'completed' ? textOf(theirs.outcome.result) : undefined;
      expect(theirText).toBe('Slept 300 ms');
      expect(resultText(e, ours)).toContain(JSON.stringify(theirText));

      const theirAsk = await (await s.tasks.callTool('ask_once', { question: 'Colour?' })).settle();
      const ourAsk = await run(e, 'ask_once', { question: 'Colour?' });
      await waitFor(() => e.batches.some((b) => b.inbox.some((i) => i.kind === 'asked')), 10_000);
      const question = e.batches.flatMap((b) => b.inbox).find((i) => i.kind === 'asked');
      if (question?.kind !== 'asked') throw new Error('not asked');
      await e.bridge.request({
        type: 'answer',
        key: question.request.key,
        outcome: 'accept',
        reply: { result: { action: 'accept', content: { answer: 'teal' } } },
      });
      await waitFor(() => fetched(e, ourAsk), 10_000);
      expect(theirAsk.outcome.status).toBe('completed');
      expect(e.tasks.getState().tasks.get(ourAsk)?.status).toBe(theirAsk.outcome.status);
      const theirAnswer =
        theirAsk.outcome.status === 'completed' ? textOf(theirAsk.outcome.result) : undefined;
      expect(theirAnswer).toBe('You answered: teal');
      expect(resultText(e, ourAsk)).toContain(JSON.stringify(theirAnswer));
    }, 30_000);
  }

  it('both see a cancelled task as cancelled', async () => {
    const r = await receiver({ mode: 'strict' });
    const s = await extTasksSession(r.url);
    const { e } = await engineOn(r.url);
    const theirs = await s.tasks.callTool('sleep_task', { ms: 30_000, pollIntervalMs: 100 });
    await theirs.cancel();
    const settled = await theirs.settle();
    const ours = await run(e, 'sleep_task', { ms: 30_000, pollIntervalMs: 100 });
    await e.bridge.request({ type: 'cancel', taskId: ours });
    await waitFor(() => e.tasks.getState().tasks.get(ours)?.status === 'cancelled', 5000);
    expect(settled.outcome.status).toBe('cancelled');
    expect(r.task(ours)?.status).toBe('cancelled');
  }, 15_000);
});
