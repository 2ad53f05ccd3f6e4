import { describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import type { Batch } from '../../src/engine/messages';
import { engineOverChannel } from '../helpers/engine-channel';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { waitFor } from '../helpers/wait';

/**
 * The report card closed, then opened, closed and opened again (the traffic mirror on, off, on): while closed
 * the page hears only the counts, and each opening brings the whole log the engine kept, the messages sent while
 * it was closed included. (One opening, the counts and a clear: traffic-mirror.test.ts; the drawer, which asks
 * for its window instead: traffic-window.test.ts.)
 */

const later = stopAfterEach();
const settings = { paused: false, minPollIntervalMs: 0 };

describe('the traffic mirror opened again', () => {
  it('gets the whole log again, with what came while it was closed', async () => {
    const receiver = await demoFor(later);
    const e = engineOverChannel({ history: async () => null }, { mirrorTraffic: false });
    later(() => e.close());
    expect(
      (await e.bridge.request({ type: 'connect', connectionId: 1, url: receiver.url, headers: {}, settings }))
        .ok,
    ).toBe(true);
    const { tools } = await e.bridge.request({ type: 'listTools' });
    const slow = tools.find((t) => t.name === 'slow_job') as ToolInfo;
    const runOne = async () => {
      const run = await e.bridge.request({
        type: 'run',
        tool: slow,
        args: { durationMs: 300, steps: 2, pollIntervalMs: 50 },
      });
      if (!run.ok || run.taskId === undefined) throw new Error('slow_job did not start as a task');
      const taskId = run.taskId;
      await waitFor(() => e.tasks.getState().tasks.get(taskId)?.result.state === 'fetched', 10_000);
    };
    const syncAfter = (from: number): Batch | undefined => e.batches.slice(from).find((b) => b.trafficSync);
    const seqs = (events: Array<{ seq: number }>) => events.map((ev) => ev.seq);

    // Closed: counts only.
    await runOne();
    expect(e.batches.flatMap((b) => b.traffic)).toEqual([]);

    // Opened: the whole log, the first exchange included.
    let from = e.batches.length;
    await e.bridge.request({ type: 'trafficMirror', on: true });
    const first = syncAfter(from);
    expect(seqs(first?.traffic ?? [])).toEqual(seqs(await e.bridge.request({ type: 'trafficEvents' })));
    expect(first?.traffic.some((ev) => ev.method === 'initialize')).toBe(true);

    // Closed again while a task runs: nothing crosses but the counts.
    await e.bridge.request({ type: 'trafficMirror', on: false });
    from = e.batches.length;
    await runOne();
    expect(e.batches.slice(from).flatMap((b) => b.traffic)).toEqual([]);
    const all = await e.bridge.request({ type: 'trafficEvents' });
    await waitFor(() => e.batches.findLast((b) => b.trafficCount)?.trafficCount?.total === all.length, 5000);

    // Opened again: the whole log once more, what came while closed included.
    from = e.batches.length;
    await e.bridge.request({ type: 'trafficMirror', on: true });
    const again = syncAfter(from);
    expect(seqs(again?.traffic ?? [])).toEqual(seqs(all));
    expect(again!.traffic.length).toBeGreaterThan(first!.traffic.length);
  });
});
