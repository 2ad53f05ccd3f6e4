import { afterEach, describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import { startDemoReceiver2026 } from '../helpers/receiver-2026';
import { startDemoReceiver } from '../helpers/receivers';
import { waitFor } from '../helpers/wait';
import { engineOverChannel } from '../helpers/engine-channel';

/** The engine (tracker, dialects, inbox) against the 2026-07-28 demo receiver, strict and dual-era. */
const settings = { paused: false, minPollIntervalMs: 0 };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connected(
  options: { dual?: boolean; pushes?: boolean; era?: 'auto' | '2025-11-25' | '2026-07-28' } = {},
) {
  const receiver = await startDemoReceiver2026({ dual: options.dual, pushes: options.pushes });
  cleanups.push(() => receiver.close());
  const e = engineOverChannel({ history: async () => null });
  cleanups.push(() => e.close());
  const reply = await e.bridge.request({
    type: 'connect',
    connectionId: 1,
    url: receiver.url,
    headers: {},
    settings,
    era: options.era,
  });
  return { receiver, e, reply };
}

async function run(e: ReturnType<typeof engineOverChannel>, name: string, args: Record<string, unknown>) {
  const { tools } = await e.bridge.request({ type: 'listTools' });
  const tool = tools.find((t) => t.name === name) as ToolInfo;
  const outcome = await e.bridge.request({ type: 'run', tool, args });
  if (!outcome.ok || outcome.taskId === undefined)
    throw new Error(outcome.ok ? 'answered at once' : outcome.error.message);
  return { tool, taskId: outcome.taskId };
}

const methods = (e: ReturnType<typeof engineOverChannel>) =>
  e.batches.flatMap((b) => b.traffic).filter((t) => t.kind === 'request' && t.direction === 'out');

describe('the 2026-07-28 dialect', () => {
  it('auto finds a strict receiver by server/discover; a task runs to its result, read from the completing tasks/get, polled at its pollIntervalMs', async () => {
    const { e, reply } = await connected();
    expect(reply.ok).toBe(true);
    expect(e.health()).toMatchObject({ status: 'connected', era: '2026-07-28', detectedBy: 'discover' });
    expect(reply.ok && reply.support).toMatchObject({ toolCall: true, cancel: true, list: false });
    const { tool, taskId } = await run(e, 'slow_job', { durationMs: 600, steps: 2, pollIntervalMs: 200 });
    expect(tool.taskSupport).toBe('receiver');
    await waitFor(() => e.tasks.getState().tasks.get(taskId)?.result.state === 'fetched', 10_000);
    const task = e.tasks.getState().tasks.get(taskId)!;
    expect(task.status).toBe('completed');
    const result = e.batches.flatMap((b) => b.results).find(([id]) => id === taskId)?.[1];
    expect(JSON.stringify(result?.value.result)).toContain('Finished');
    const sent = methods(e).map((t) => t.method);
    expect(sent).not.toContain('tasks/result');
    expect(sent).not.toContain('initialize');
    // Poll discipline is the tracker's, the same as for 2025-11-25: never sooner than asked, from the create
    // on (how many polls a 0.6 s task gets is the machine's business; one at least, the one that saw it end).
    const polls = task.entries.flatMap((x) =>
      x.kind === 'observation' && (x.source === 'poll' || x.source === 'create') ? [x.sentAt ?? NaN] : [],
    );
    expect(polls.length).toBeGreaterThanOrEqual(2);
    const gaps = polls.slice(1).map((at, i) => at - polls[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(195);
    expect(e.tasks.getState().dialects).toEqual(['v2']);
    // No "newer protocol" warning: it is the protocol spoken.
    expect(JSON.stringify(task.entries)).not.toContain('newer-protocol');
  }, 20_000);

  it('an input round: the inputRequests reach the inbox once, the answer goes back with tasks/update', async () => {
    const { e } = await connected();
    const { taskId } = await run(e, 'ask_user', { question: 'Which colour?' });
    await waitFor(() => e.batches.some((b) => b.inbox.some((i) => i.kind === 'asked')), 10_000);
    // Several polls see the same key: it is asked once. Two more answered polls, each carrying the question.
    const polls = () =>
      e.tasks
        .getState()
        .tasks.get(taskId)
        ?.entries.filter((x) => x.kind === 'observation' && x.source === 'poll').length ?? 0;
    const whenAsked = polls();
    await waitFor(() => polls() >= whenAsked + 2, 10_000);
    const asked = e.batches.flatMap((b) => b.inbox).filter((i) => i.kind === 'asked');
    expect(asked).toHaveLength(1);
    const question = asked[0]!;
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
    await waitFor(() => e.tasks.getState().tasks.get(taskId)?.result.state === 'fetched', 10_000);
    const result = e.batches.flatMap((b) => b.results).find(([id]) => id === taskId)?.[1];
    expect(JSON.stringify(result?.value.result)).toContain('You answered: teal');
    expect(methods(e).filter((t) => t.method === 'tasks/update')).toHaveLength(1);
    const entries = e.tasks.getState().tasks.get(taskId)!.entries;
    expect(entries.filter((x) => x.kind === 'input').map((x) => x.kind === 'input' && x.phase)).toEqual([
      'asked',
      'answered',
    ]);
  }, 20_000);

  it('a plain call declares no tasks extension: a task-only tool is refused with -32021, explained; an optional one answers inline', async () => {
    const { e } = await connected();
    const { tools } = await e.bridge.request({ type: 'listTools' });
    const slow = tools.find((t) => t.name === 'slow_job') as ToolInfo;
    const refused = await e.bridge.request({ type: 'callPlain', tool: slow, args: { durationMs: 100 } });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error.message).toMatch(/-32021.*only as a task/);
    const summarise = tools.find((t) => t.name === 'summarise') as ToolInfo;
    const inline = await e.bridge.request({ type: 'callPlain', tool: summarise, args: {} });
    expect(inline.ok).toBe(true);
    expect(e.tasks.getState().order).toHaveLength(0);
  }, 15_000);

  it('cancel is acknowledged (an empty answer, no warning), and the push that confirms it reads cancelled', async () => {
    const { e } = await connected();
    // Polled every 5 s: the push brings the cancelled status long before the next poll would.
    const { taskId } = await run(e, 'slow_job', { durationMs: 600_000, steps: 2, pollIntervalMs: 5000 });
    const refused = await e.bridge.request({ type: 'cancel', taskId });
    expect(refused).toBeNull();
    await waitFor(() => e.tasks.getState().tasks.get(taskId)?.status === 'cancelled', 5000);
    const task = e.tasks.getState().tasks.get(taskId)!;
    const cancel = task.entries.find((x) => x.kind === 'observation' && x.source === 'cancel');
    expect(cancel).toMatchObject({ status: null, warnings: [] });
    const confirmed = task.entries.find((x) => x.kind === 'observation' && x.status === 'cancelled');
    expect(confirmed).toMatchObject({ source: 'notification', warnings: [] });
    expect(task.warningCount).toBe(0);
  }, 15_000);

  it('pushes arrive over subscriptions/listen and never bring a poll forward', async () => {
    const { e } = await connected();
    const { taskId } = await run(e, 'slow_job', { durationMs: 1500, steps: 3, pollIntervalMs: 5000 });
    await waitFor(() => (e.tasks.getState().tasks.get(taskId)?.notificationCount ?? 0) >= 1, 10_000);
    await waitFor(() => e.tasks.getState().tasks.get(taskId)?.result.state === 'fetched', 10_000);
    const task = e.tasks.getState().tasks.get(taskId)!;
    // Done in 1.5 s by pushes, while the interval asked for 5 s: at most the first poll went out.
    expect(task.pollCount).toBeLessThanOrEqual(1);
    expect(methods(e).some((t) => t.method === 'subscriptions/listen')).toBe(true);
  }, 20_000);

  it("a receiver whose listen honours no task ids (server 2.4's own router): said once, and polling alone carries the task", async () => {
    const { e } = await connected({ pushes: false });
    // Both work for 5 s, long enough for both streams to open while they run: the second opens after the
    // first closed and a retry pause (1 s, then 2 s: task-listen-2026.ts), about 2.5 s in.
    const { taskId } = await run(e, 'slow_job', { durationMs: 5000, steps: 2, pollIntervalMs: 200 });
    const { taskId: second } = await run(e, 'slow_job', { durationMs: 5000, steps: 2, pollIntervalMs: 200 });
    // Once may be ids it no longer has; the second stream that honours none is said, and no more are opened.
    await waitFor(
      () => e.batches.some((b) => /pushes no task updates/.test(b.connection?.streamNote ?? '')),
      8000,
    );
    await waitFor(() => e.tasks.getState().tasks.get(second)?.result.state === 'fetched', 15_000);
    await waitFor(() => e.tasks.getState().tasks.get(taskId)?.result.state === 'fetched', 5000);
    expect(e.tasks.getState().tasks.get(second)?.notificationCount).toBe(0);
  }, 30_000);

  it('a dual-era receiver is spoken to in 2026-07-28 (where its tasks are); forced to 2025-11-25 its tools say no task', async () => {
    const dual = await connected({ dual: true });
    expect(dual.e.health()).toMatchObject({ era: '2026-07-28', detectedBy: 'discover' });
    const forced = await connected({ dual: true, era: '2025-11-25' });
    expect(forced.e.health()).toMatchObject({ era: '2025-11-25', detectedBy: 'forced' });
    const { tools } = await forced.e.bridge.request({ type: 'listTools' });
    expect(tools.every((t) => t.taskSupport === 'forbidden')).toBe(true);
    // Stateless in 2025-11-25 (its GET is refused): said once, as no pushes and polling only.
    await waitFor(
      () =>
        forced.e.batches.some((b) =>
          /no notification stream \(GET refused\)/.test(b.connection?.streamNote ?? ''),
        ),
      5000,
    );
    // Said once: nothing reopens a refused stream. A reopening would come a reconnect floor (1 s) after the
    // refusal; a plain summarise, which the receiver answers 1.2 s after it starts, ends later than that.
    expect(forced.receiver.arrivals.GET).toBe(1);
    const summarise = tools.find((t) => t.name === 'summarise') as ToolInfo;
    const plain = await forced.e.bridge.request({ type: 'callPlain', tool: summarise, args: {} });
    expect(plain.ok).toBe(true);
    expect(forced.receiver.arrivals.GET).toBe(1);
    const notes = forced.e.batches
      .filter((b) => b.connection?.streamNote)
      .map((b) => b.connection?.streamNote);
    expect(notes).toEqual([
      'The receiver offers no notification stream (GET refused): no pushes outside tasks/result; polling carries on.',
    ]);
  }, 20_000);

  it('forced to 2025-11-25, a strict receiver is said to speak only 2026-07-28; forced to 2026-07-28, a 2025-only one is said not to', async () => {
    const strict = await connected({ era: '2025-11-25' });
    expect(strict.reply.ok).toBe(false);
    expect(strict.e.health()?.status).toBe('error');
    expect(strict.e.health()?.error?.message).toMatch(/speaks only 2026-07-28/);

    const old = await startDemoReceiver();
    cleanups.push(() => old.close());
    const e = engineOverChannel({ history: async () => null });
    cleanups.push(() => e.close());
    await e.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: old.url,
      headers: {},
      settings,
      era: '2026-07-28',
    });
    expect(e.health()?.status).toBe('error');
    expect(e.health()?.error?.message).toMatch(/does not speak 2026-07-28/);
    // And on auto, the same receiver is found to be 2025-11-25 after one refused discover.
    const auto = engineOverChannel({ history: async () => null });
    cleanups.push(() => auto.close());
    await auto.bridge.request({ type: 'connect', connectionId: 1, url: old.url, headers: {}, settings });
    expect(auto.health()).toMatchObject({ status: 'connected', era: '2025-11-25', detectedBy: 'initialize' });
  }, 20_000);
});
