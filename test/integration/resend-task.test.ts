import { afterEach, describe, expect, it } from 'vitest';
import { startDemoReceiver, type RunningReceiver } from '../helpers/receivers';
import { engineOverChannel } from '../helpers/engine-channel';

const settings = { paused: false, minPollIntervalMs: 0 };
let receiver: RunningReceiver | undefined;
let engine: ReturnType<typeof engineOverChannel> | undefined;
const connectCommand = (connectionId: number) =>
  ({ type: 'connect', connectionId, url: receiver!.url, headers: {}, settings }) as const;

/** The traffic panel's Resend of a task-augmented slow_job call. */
const resendSlowJob = (label: string) =>
  ({
    type: 'resend',
    method: 'tools/call',
    params: {
      name: 'slow_job',
      arguments: { durationMs: 5_000, steps: 1, pollIntervalMs: 1_000, label },
      task: { ttl: 60_000 },
    },
  }) as const;

/**
 * The global fetch, except that the receiver's answer to a tools/call is handed on only at `release()`: the
 * call reaches the receiver, which starts the task and answers, and the engine waits for that answer for as
 * long as the test needs.
 */
function holdingToolsCalls() {
  let answered!: (taskId: string | undefined) => void;
  let release!: () => void;
  /** The task id in the held answer. */
  const held = new Promise<string | undefined>((resolve) => (answered = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    if (typeof init?.body === 'string' && init.body.includes('"tools/call"')) {
      answered(/"taskId":"([^"]+)"/.exec(await response.clone().text())?.[1]);
      await released;
    }
    return response;
  };
  return { fetch, held, release };
}

const taskIdOf = (result: unknown) => (result as { task: { taskId: string } }).task.taskId;

afterEach(async () => {
  await engine?.close();
  await receiver?.close();
  engine = receiver = undefined;
});

describe('a resent task-augmented tools/call', () => {
  it('is tracked on the live connection as a created task, with the tool, arguments and ttl it was sent with', async () => {
    receiver = await startDemoReceiver();
    engine = engineOverChannel();
    const { bridge, batches, tasks } = engine;
    expect((await bridge.request(connectCommand(1))).ok).toBe(true);

    const resent = await bridge.request(resendSlowJob('again'));
    if (!resent.ok) throw new Error(resent.error.message);
    const taskId = taskIdOf(resent.result);

    // Batches go out before the reply: the page has the task when the resend answers.
    expect(tasks.getState().tasks.get(taskId)).toMatchObject({
      taskId,
      connectionId: 1,
      origin: 'created',
      tool: 'slow_job',
      call: {
        tool: 'slow_job',
        args: { durationMs: 5_000, steps: 1, pollIntervalMs: 1_000, label: 'again' },
        ttl: 60_000,
      },
    });
    expect(
      batches.some((b) => b.connectionId === 1 && b.tasks?.changes.some((c) => c.task.taskId === taskId)),
    ).toBe(true);
  });
});

describe('a resend whose answer comes after the connection changed', () => {
  it("leaves the old connection's task out of the new connection's list", async () => {
    receiver = await startDemoReceiver();
    const calls = holdingToolsCalls();
    engine = engineOverChannel({ fetch: calls.fetch });
    const { bridge, batches, tasks } = engine;
    expect((await bridge.request(connectCommand(1))).ok).toBe(true);

    const resent = bridge.request(resendSlowJob('before the reconnect'));
    // The receiver has started the task and answered; the engine has not seen the answer yet.
    const oldTaskId = await calls.held;
    expect(oldTaskId).toEqual(expect.any(String));
    expect((await bridge.request(connectCommand(2))).ok).toBe(true);
    calls.release();
    // Closing the first session fails the call today; were its answer still handed back, it is the first
    // connection's all the same, and that connection is gone.
    await resent;

    const onSecond = () => [...tasks.getState().tasks.values()].filter((t) => t.connectionId === 2);
    expect(onSecond()).toEqual([]);
    expect(
      batches
        .filter((b) => b.connectionId === 2)
        .flatMap((b) => b.tasks?.changes ?? [])
        .map((c) => c.task.taskId),
    ).toEqual([]);
    // The first connection's status push may have announced it while that connection lived: then it is
    // that connection's record, ended with its session, and nothing else.
    const old = tasks.getState().tasks.get(oldTaskId!);
    expect(old === undefined || (old.connectionId === 1 && old.sessionEndedAt !== undefined)).toBe(true);

    // The new connection does take a resend of its own (with tools/call answers no longer held).
    const again = await bridge.request(resendSlowJob('after the reconnect'));
    if (!again.ok) throw new Error(again.error.message);
    const taskId = taskIdOf(again.result);
    expect(onSecond().map((t) => t.taskId)).toEqual([taskId]);
    expect(tasks.getState().tasks.get(taskId)).toMatchObject({
      connectionId: 2,
      call: { args: { label: 'after the reconnect' } },
    });
  });
});
