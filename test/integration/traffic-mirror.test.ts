import { afterEach, describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import { startDemoReceiver, type RunningReceiver } from '../helpers/receivers';
import { waitFor } from '../helpers/wait';
import { engineOverChannel } from '../helpers/engine-channel';

const settings = { paused: false, minPollIntervalMs: 0 };
let receiver: RunningReceiver | undefined;
let engine: ReturnType<typeof engineOverChannel> | undefined;

afterEach(async () => {
  await engine?.close();
  await receiver?.close();
  engine = receiver = undefined;
});

/** Connects, runs a short task and waits for its result: a few dozen messages in the engine's log. */
async function runOneTask(e: ReturnType<typeof engineOverChannel>, url: string): Promise<string> {
  const connected = await e.bridge.request({ type: 'connect', connectionId: 1, url, headers: {}, settings });
  expect(connected.ok).toBe(true);
  const { tools } = await e.bridge.request({ type: 'listTools' });
  const slow = tools.find((t) => t.name === 'slow_job') as ToolInfo;
  const run = await e.bridge.request({
    type: 'run',
    tool: slow,
    args: { durationMs: 300, steps: 2, pollIntervalMs: 50 },
  });
  if (!run.ok || run.taskId === undefined) throw new Error(run.ok ? 'answered at once' : run.error.message);
  const taskId = run.taskId;
  await waitFor(() => e.tasks.getState().tasks.get(taskId)?.result.state === 'fetched', 10_000);
  return taskId;
}

const lastCount = (e: ReturnType<typeof engineOverChannel>) =>
  e.batches.findLast((b) => b.trafficCount !== undefined)?.trafficCount;

describe('the traffic log lives in the engine; the page holds its rows only while it shows them', () => {
  it('unmirrored, batches carry the counts and no message; an export gets the whole log on request', async () => {
    receiver = await startDemoReceiver();
    engine = engineOverChannel({}, { mirrorTraffic: false });
    const e = engine;
    await runOneTask(e, receiver.url);
    expect(e.batches.flatMap((b) => b.traffic)).toEqual([]);
    const events = await e.bridge.request({ type: 'trafficEvents', connectionId: 1 });
    expect(events.some((ev) => ev.method === 'tasks/get')).toBe(true);
    expect(events.map((ev) => ev.seq)).toEqual([...events.map((ev) => ev.seq)].sort((a, b) => a - b));
    // The counts the drawer shows closed are those of the log the export read.
    await waitFor(() => lastCount(e)?.kept === events.length, 5000);
    expect(lastCount(e)?.total).toBe(events.length);
    // Paired rows: fewer rows than events once answers came.
    expect(lastCount(e)!.rows).toBeLessThan(events.length);
    expect(await e.bridge.request({ type: 'trafficEvents', connectionId: 2 })).toEqual([]);
  });

  it('mirrored, the first batch brings the whole log and later ones only what was added; a clear empties it', async () => {
    receiver = await startDemoReceiver();
    engine = engineOverChannel({}, { mirrorTraffic: false });
    const e = engine;
    await runOneTask(e, receiver.url);
    const before = await e.bridge.request({ type: 'trafficEvents' });
    const from = e.batches.length;
    await e.bridge.request({ type: 'trafficMirror', on: true });
    const sync = e.batches.slice(from).find((b) => b.trafficSync);
    expect(sync?.traffic.map((ev) => ev.seq)).toEqual(before.map((ev) => ev.seq));
    const afterSync = e.batches.length;
    await runOneTask(e, receiver.url);
    const added = e.batches.slice(afterSync).flatMap((b) => b.traffic);
    expect(e.batches.slice(afterSync).some((b) => b.trafficSync)).toBe(false);
    const all = await e.bridge.request({ type: 'trafficEvents' });
    expect(added.map((ev) => ev.seq)).toEqual(all.slice(before.length).map((ev) => ev.seq));
    expect(added.some((ev) => ev.method === 'tools/call')).toBe(true);

    const cleared = e.batches.length;
    await e.bridge.request({ type: 'trafficClear', epoch: 7 });
    expect(await e.bridge.request({ type: 'trafficEvents' })).toEqual([]);
    const next = e.batches.slice(cleared);
    expect(next.at(-1)?.trafficEpoch).toBe(7);
    expect(next.at(-1)?.trafficCount).toEqual({ total: 0, kept: 0, rows: 0 });

    // Off again: no message crosses, the counts still do.
    await e.bridge.request({ type: 'trafficMirror', on: false });
    const off = e.batches.length;
    await e.bridge.request({ type: 'pollNow', taskId: 'none' });
    await e.bridge.request({ type: 'syncList' });
    await waitFor(() => (lastCount(e)?.total ?? 0) > 0, 5000);
    expect(e.batches.slice(off).flatMap((b) => b.traffic)).toEqual([]);
  });
});
