import { describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import { connectedEngine } from '../helpers/engine-channel';
import { stopAfterEach } from '../helpers/cleanups';
import { startDemoReceiver } from '../helpers/receivers';
import { waitFor } from '../helpers/wait';

/**
 * What recovery.test.ts leaves out: across a receiver's death and restart, what the page holds of a task (the
 * store built from the engine's batches, as the page builds its own) keeps everything seen before: its polls, its
 * observations, its place in the list. (The outage, the recovery and "session ended": recovery.test.ts.)
 */

const later = stopAfterEach();

describe('a receiver that dies and comes back', () => {
  it('leaves the history of a task it lost on the page: its polls and observations, in the list', async () => {
    let receiver = await startDemoReceiver();
    const port = receiver.port;
    later(() => receiver.close());
    const e = await connectedEngine(receiver.url, later, { history: async () => null });
    const { tools } = await e.bridge.request({ type: 'listTools' });
    const run = await e.bridge.request({
      type: 'run',
      tool: tools.find((t) => t.name === 'slow_job') as ToolInfo,
      args: { durationMs: 600_000, steps: 2, pollIntervalMs: 100, ttlMs: 600_000 },
    });
    if (!run.ok || run.taskId === undefined) throw new Error('slow_job did not start as a task');
    const taskId = run.taskId;
    const task = () => e.tasks.getState().tasks.get(taskId);
    const observations = () => task()?.entries.filter((x) => x.kind === 'observation').length ?? 0;
    await waitFor(() => (task()?.pollCount ?? 0) > 2, 5000);

    await receiver.close();
    await waitFor(() => e.health()?.status === 'unreachable', 10_000);
    const polls = task()!.pollCount;
    const seen = observations();
    expect(seen).toBeGreaterThan(2);

    receiver = await startDemoReceiver({ port });
    await waitFor(() => e.health()?.status === 'connected' && task()?.lifecycle === 'session-ended', 20_000);
    expect(task()!.pollCount).toBeGreaterThanOrEqual(polls);
    expect(observations()).toBeGreaterThanOrEqual(seen);
    expect(e.tasks.getState().order).toContain(taskId);
  }, 40_000);
});
