import { afterEach, describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import type { ConnectReply } from '../../src/engine/messages';
import { startDemoReceiver } from '../helpers/receivers';
import { waitFor } from '../helpers/wait';
import { engineOverChannel } from '../helpers/engine-channel';

const settings = { paused: false, minPollIntervalMs: 0 };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiverOnPort(port?: number) {
  const receiver = await startDemoReceiver({ port });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await receiver.close();
  };
  cleanups.push(close);
  return { ...receiver, close };
}

function engine() {
  const e = engineOverChannel({ history: async () => null });
  cleanups.push(() => e.close());
  return e;
}

async function connectAndRun(e: ReturnType<typeof engine>, url: string, args: Record<string, unknown>) {
  const connected = await e.bridge.request({ type: 'connect', connectionId: 1, url, headers: {}, settings });
  if (!connected.ok) throw new Error('connect failed');
  const { tools } = await e.bridge.request({ type: 'listTools' });
  const run = await e.bridge.request({
    type: 'run',
    tool: tools.find((t) => t.name === 'slow_job') as ToolInfo,
    args,
  });
  if (!run.ok || run.taskId === undefined) throw new Error(run.ok ? 'answered at once' : run.error.message);
  return { connected, taskId: run.taskId };
}

describe('a connection that outlives its sessions', () => {
  it('a receiver that goes away is unreachable (not CORS) with polls held, and after its restart a new session is opened by itself; tasks it lost end as "session ended", not purged', async () => {
    const first = await receiverOnPort();
    const e = engine();
    const { connected, taskId } = await connectAndRun(e, first.url, {
      durationMs: 60_000,
      steps: 2,
      pollIntervalMs: 100,
    });
    const firstSession = (connected as Extract<ConnectReply, { ok: true }>).sessionId;
    await waitFor(() => (e.tasks.getState().tasks.get(taskId)?.pollCount ?? 0) >= 2, 5000);

    await first.close();
    await waitFor(() => e.health()?.status === 'unreachable', 10_000);
    expect(e.health()?.error?.message).toMatch(/not CORS/);
    const pollsWhileDown = e.tasks.getState().tasks.get(taskId)!.pollCount;
    const errors = () =>
      e.tasks
        .getState()
        .tasks.get(taskId)!
        .entries.filter((x) => x.kind === 'error').length;
    const errorsWhileDown = errors();
    // Held while nothing answers: no poll (and no error on the task) for each failed attempt. The next
    // attempt fails a backoff (1 s and more) after the last: ten poll intervals of this task.
    const attempt = e.health()?.attempt ?? 0;
    await waitFor(() => (e.health()?.attempt ?? 0) > attempt, 10_000);
    expect(e.health()?.status).toBe('unreachable');
    expect(e.tasks.getState().tasks.get(taskId)!.pollCount).toBe(pollsWhileDown);
    expect(errors()).toBe(errorsWhileDown);

    await receiverOnPort(first.port);
    await waitFor(() => e.health()?.status === 'connected', 20_000);
    const health = e.health()!;
    expect(health.recoveredAt).toBeGreaterThan(0);
    expect(health.sessionId).toBeDefined();
    expect(health.sessionId).not.toBe(firstSession);
    expect(e.healths.map((h) => h.status)).toContain('session-lost');

    await waitFor(() => e.tasks.getState().tasks.get(taskId)?.lifecycle === 'session-ended', 10_000);
    const task = e.tasks.getState().tasks.get(taskId)!;
    expect(task.sessionEndedAt).toBeGreaterThan(0);
    expect(task.sessionId).toBe(firstSession);
    expect(task.entries.some((entry) => entry.kind === 'purged')).toBe(false);
    expect(task.entries.filter((entry) => entry.kind === 'session').length).toBeGreaterThanOrEqual(2);

    // The new session works: a new task runs to its result there.
    const { tools } = await e.bridge.request({ type: 'listTools' });
    const again = await e.bridge.request({
      type: 'run',
      tool: tools.find((t) => t.name === 'slow_job') as ToolInfo,
      args: { durationMs: 300, steps: 1, pollIntervalMs: 100 },
    });
    if (!again.ok || again.taskId === undefined)
      throw new Error(again.ok ? 'answered at once' : again.error.message);
    await waitFor(() => e.tasks.getState().tasks.get(again.taskId)?.result.state === 'fetched', 10_000);
    expect(e.tasks.getState().tasks.get(again.taskId)!.sessionId).toBe(health.sessionId);
  }, 40_000);

  it('a session the receiver no longer knows is not resumed (a new one opens); one it still knows is taken up by id after a reload, without initialize, and its task completes there', async () => {
    const receiver = await receiverOnPort();
    const first = engine();
    const { connected, taskId } = await connectAndRun(first, receiver.url, {
      durationMs: 1500,
      steps: 2,
      pollIntervalMs: 100,
    });
    const ok = connected as Extract<ConnectReply, { ok: true }>;
    // Disconnect, and only Disconnect, ends the session on the receiver (DELETE).
    const sessionsBefore = receiver.receiver.sessionCount();
    await first.bridge.request({ type: 'disconnect' });
    expect(receiver.receiver.sessionCount()).toBe(sessionsBefore - 1);

    const second = engine();
    const resumed = await second.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: receiver.url,
      headers: {},
      settings,
      resume: { sessionId: ok.sessionId!, protocolVersion: ok.server.protocolVersion, server: ok.server },
    });
    // The receiver no longer knows it, so it cannot be resumed: a new session instead.
    expect(resumed.ok).toBe(true);
    expect(resumed.ok && resumed.resumed).toBe(false);
    expect(resumed.ok && resumed.sessionId).not.toBe(ok.sessionId);

    const third = engine();
    const kept = await connectAndRun(third, receiver.url, {
      durationMs: 1500,
      steps: 2,
      pollIntervalMs: 100,
    });
    const keptOk = kept.connected as Extract<ConnectReply, { ok: true }>;
    // A new connect elsewhere leaves the session open on the receiver (no DELETE), as a reload does.
    await third.bridge.request({
      type: 'connect',
      connectionId: 2,
      url: 'http://127.0.0.1:9/mcp',
      headers: {},
      settings,
    });
    const fourth = engine();
    const taken = await fourth.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: receiver.url,
      headers: {},
      settings,
      resume: {
        sessionId: keptOk.sessionId!,
        protocolVersion: keptOk.server.protocolVersion,
        server: keptOk.server,
      },
    });
    expect(taken.ok && taken.resumed).toBe(true);
    expect(taken.ok && taken.sessionId).toBe(keptOk.sessionId);
    // tasks/list in the resumed session brings the task back, live, and it runs to its result.
    await waitFor(() => fourth.tasks.getState().tasks.get(kept.taskId)?.result.state === 'fetched', 10_000);
    expect(fourth.tasks.getState().tasks.get(kept.taskId)!.status).toBe('completed');
    expect(taskId).not.toBe(kept.taskId);
    expect(receiver.receiver.sessionCount()).toBeGreaterThanOrEqual(2);
  }, 30_000);
});
