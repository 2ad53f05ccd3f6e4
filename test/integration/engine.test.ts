import { afterEach, describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import { startDemoReceiver, type RunningReceiver } from '../helpers/receivers';
import { waitFor } from '../helpers/wait';
import { engineOverChannel } from '../helpers/engine-channel';

const settings = { paused: false, minPollIntervalMs: 0 };
let receiver: (RunningReceiver & { receiver: { sessionCount: () => number } }) | undefined;
let engine: ReturnType<typeof engineOverChannel> | undefined;
/** The connect command for the demo receiver the test started. */
const connectCommand = (connectionId = 1) =>
  ({ type: 'connect', connectionId, url: receiver!.url, headers: {}, settings }) as const;

afterEach(async () => {
  await engine?.close();
  await receiver?.close();
  engine = receiver = undefined;
});

describe('the engine behind a message boundary', () => {
  it('a run command comes back as the task in a batch, polled to completion with its result', async () => {
    receiver = await startDemoReceiver();
    engine = engineOverChannel();
    const { bridge, batches, tasks } = engine;
    const connected = await bridge.request(connectCommand());
    expect(connected.ok).toBe(true);
    const { tools } = await bridge.request({ type: 'listTools' });
    const slow = tools.find((t) => t.name === 'slow_job') as ToolInfo;
    const run = await bridge.request({
      type: 'run',
      tool: slow,
      args: { durationMs: 600, steps: 2, pollIntervalMs: 100 },
    });
    if (!run.ok || run.taskId === undefined) throw new Error(run.ok ? 'answered at once' : run.error.message);
    // Batches are applied before the reply resolves: the page already has the task when it selects it.
    expect(tasks.getState().tasks.get(run.taskId)?.origin).toBe('created');
    await waitFor(() => tasks.getState().tasks.get(run.taskId)?.result.state === 'fetched', 10_000);
    const record = tasks.getState().tasks.get(run.taskId)!;
    expect(record.status).toBe('completed');
    expect(record.pollCount).toBeGreaterThan(0);
    expect(record.pollsAfterTerminal).toBe(0);
    // The page's timeline holds every entry the tracker made, delivered as deltas.
    expect(record.entries.filter((e) => e.kind === 'observation').length).toBeGreaterThan(
      record.pollCount - 1,
    );
    const all = batches.filter((b) => b.connectionId === 1);
    expect(
      all.some((b) => b.snapshots.some(([id, s]) => id === run.taskId && s.status === 'completed')),
    ).toBe(true);
    expect(all.some((b) => b.results.some(([id]) => id === run.taskId))).toBe(true);
    expect(all.some((b) => b.traffic.some((e) => e.method === 'tasks/get'))).toBe(true);
  });

  it('a resent task-augmented tools/call starts a task that is followed like one run from the form', async () => {
    receiver = await startDemoReceiver();
    engine = engineOverChannel();
    const { bridge, tasks } = engine;
    const connected = await bridge.request(connectCommand());
    expect(connected.ok).toBe(true);
    const resent = await bridge.request({
      type: 'resend',
      method: 'tools/call',
      params: {
        name: 'slow_job',
        arguments: { durationMs: 300, steps: 1, pollIntervalMs: 50 },
        task: { ttl: 60_000 },
      },
    });
    if (!resent.ok) throw new Error(resent.error.message);
    const taskId = (resent.result as { task: { taskId: string } }).task.taskId;
    await waitFor(() => tasks.getState().tasks.get(taskId)?.result.state === 'fetched', 10_000);
    const record = tasks.getState().tasks.get(taskId)!;
    expect(record).toMatchObject({ origin: 'created', tool: 'slow_job', status: 'completed' });
  });

  it('connect racing itself: the later connect wins and the earlier session is closed', async () => {
    receiver = await startDemoReceiver();
    engine = engineOverChannel();
    const { bridge } = engine;
    const first = bridge.request(connectCommand());
    const second = bridge.request(connectCommand(2));
    const [a, b] = await Promise.all([first, second]);
    expect(a).toEqual({ ok: false, stale: true });
    expect(b.ok).toBe(true);
    await waitFor(() => receiver!.receiver.sessionCount() === 1, 5_000);
    // Commands now reach the second session.
    const { tools } = await bridge.request({ type: 'listTools' });
    expect(tools.length).toBeGreaterThan(0);
  });

  it('a receiver question reaches the page as an inbox event, and the answer goes back to the task', async () => {
    receiver = await startDemoReceiver();
    engine = engineOverChannel();
    const { bridge, batches, tasks } = engine;
    await bridge.request(connectCommand());
    const { tools } = await bridge.request({ type: 'listTools' });
    const ask = tools.find((t) => t.name === 'ask_user') as ToolInfo;
    const run = await bridge.request({ type: 'run', tool: ask, args: { question: 'Colour?' } });
    if (!run.ok || run.taskId === undefined) throw new Error(run.ok ? 'answered at once' : run.error.message);
    const asked = () =>
      batches
        .flatMap((b) => b.inbox)
        .find((e) => e.kind === 'asked' && e.request.relatedTaskId === run.taskId);
    await waitFor(() => asked() !== undefined, 10_000);
    const event = asked()!;
    if (event.kind !== 'asked') throw new Error('unreachable');
    const schema = event.request.params.requestedSchema as { properties: Record<string, unknown> };
    const field = Object.keys(schema.properties)[0]!;
    expect(
      await bridge.request({
        type: 'answer',
        key: event.request.key,
        outcome: 'accept',
        reply: { result: { action: 'accept', content: { [field]: 'teal' } } },
      }),
    ).toBe(true);
    await waitFor(() => tasks.getState().tasks.get(run.taskId)?.status === 'completed', 10_000);
    const record = tasks.getState().tasks.get(run.taskId)!;
    expect(
      record.entries.filter((e) => e.kind === 'input').map((e) => e.kind === 'input' && e.phase),
    ).toEqual(['asked', 'answered']);
    expect(batches.flatMap((b) => b.inbox).some((e) => e.kind === 'settled' && e.state === 'answered')).toBe(
      true,
    );
  });
});

describe('a plain call', () => {
  it('adds no task to the list even when the receiver runs it as a task of its own and pushes its status', async () => {
    receiver = await startDemoReceiver();
    engine = engineOverChannel();
    const { bridge, batches, tasks } = engine;
    await bridge.request(connectCommand());
    const { tools } = await bridge.request({ type: 'listTools' });
    const summarise = tools.find((t) => t.name === 'summarise') as ToolInfo;
    const answer = await bridge.request({ type: 'callPlain', tool: summarise, args: {} });
    expect(answer.ok).toBe(true);
    // The receiver's push about its own task, as the engine logged it on arrival.
    const pushed = () =>
      batches.some((b) =>
        b.traffic.some(
          (t) =>
            t.direction === 'in' &&
            t.method === 'notifications/tasks/status' &&
            (t.message as { params?: { status?: string } }).params?.status === 'completed',
        ),
      );
    await waitFor(pushed, 10_000);
    // One more round trip: whatever the engine did about that push is in a batch before this reply.
    await bridge.request({ type: 'listTools' });
    expect(tasks.getState().order).toEqual([]);
  }, 15_000);
});

describe('progress and log lines on a task (2025-11-25)', () => {
  it("slow_job's progress on its token and its log line naming the task reach the task's record and timeline", async () => {
    receiver = await startDemoReceiver();
    engine = engineOverChannel();
    const { bridge, tasks } = engine;
    await bridge.request(connectCommand());
    const { tools } = await bridge.request({ type: 'listTools' });
    const slow = tools.find((t) => t.name === 'slow_job') as ToolInfo;
    const run = await bridge.request({
      type: 'run',
      tool: slow,
      args: { durationMs: 900, steps: 3, pollIntervalMs: 200, label: 'bar' },
    });
    if (!run.ok || run.taskId === undefined) throw new Error('no task');
    await waitFor(() => tasks.getState().tasks.get(run.taskId!)?.result.state === 'fetched', 10_000);
    await waitFor(() => tasks.getState().tasks.get(run.taskId!)?.progress?.progress === 3, 3000);
    const task = tasks.getState().tasks.get(run.taskId)!;
    expect(task.progress).toMatchObject({ progress: 3, total: 3, message: 'Done: bar' });
    expect(task.call).toMatchObject({ tool: 'slow_job', args: { label: 'bar' } });
    const progress = task.entries.flatMap((e) => (e.kind === 'progress' ? [e.progress] : []));
    // Reports sent before the create answer came are the task's too.
    expect(progress).toEqual([0, 1, 2, 3]);
    const log = task.entries.find((e) => e.kind === 'log');
    expect(log).toMatchObject({
      kind: 'log',
      level: 'info',
      logger: 'slow_job',
      text: 'slow_job bar: 3 steps over 900 ms',
    });
  }, 20_000);
});
