import { describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import { NO_FILTER } from '../../src/engine/traffic-filter';
import type { TrafficWindowRequest } from '../../src/engine/traffic-window';
import { engineOverChannel } from '../helpers/engine-channel';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { waitFor } from '../helpers/wait';

/**
 * The traffic drawer against a real receiver: while open it hears its window (the rows in view, filtered in the
 * engine, and the opened message), never the log's messages themselves; closed, the counts alone.
 */

const later = stopAfterEach();
const settings = { paused: false, minPollIntervalMs: 0 };

describe('the traffic drawer’s window', () => {
  it('crosses instead of the log: the newest rows followed, a filter applied in the engine, the opened row whole, nothing once closed', async () => {
    const receiver = await demoFor(later);
    const e = engineOverChannel({ history: async () => null }, { mirrorTraffic: false });
    later(() => e.close());
    const connected = await e.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: receiver.url,
      headers: {},
      settings,
    });
    expect(connected.ok).toBe(true);
    const ask: TrafficWindowRequest = {
      filter: NO_FILTER,
      connectionId: 1,
      start: 0,
      count: 5,
      follow: true,
    };
    await e.bridge.request({ type: 'trafficWindow', window: ask });
    const windows = () => e.batches.flatMap((b) => (b.trafficWindow ? [b.trafficWindow] : []));
    expect(windows().at(-1)?.filtered).toBeGreaterThan(0);

    const { tools } = await e.bridge.request({ type: 'listTools' });
    const slow = tools.find((t) => t.name === 'slow_job') as ToolInfo;
    const run = await e.bridge.request({
      type: 'run',
      tool: slow,
      args: { durationMs: 300, steps: 2, pollIntervalMs: 50 },
    });
    if (!run.ok || run.taskId === undefined) throw new Error('slow_job did not start as a task');
    const taskId = run.taskId;
    await waitFor(() => e.tasks.getState().tasks.get(taskId)?.result.state === 'fetched', 10_000);
    // Following: the last five rows of everything, as the log grows; never a message with its body.
    await waitFor(
      () =>
        windows()
          .at(-1)
          ?.lines.some((l) => l.method === 'tasks/result') === true,
      5000,
    );
    const newest = windows().at(-1)!;
    expect(newest.lines).toHaveLength(5);
    expect(newest.start).toBe(newest.filtered - 5);
    expect(e.batches.flatMap((b) => b.traffic)).toEqual([]);
    expect(e.batches.some((b) => b.trafficSync)).toBe(false);

    // Filtered in the engine: this task's polls only, and the opened one whole.
    await e.bridge.request({
      type: 'trafficWindow',
      window: {
        ...ask,
        filter: { ...NO_FILTER, method: 'tasks/get', taskId, taskExact: true },
        follow: false,
      },
    });
    const polls = windows().at(-1)!;
    expect(polls.filtered).toBeGreaterThan(0);
    expect(polls.lines.every((l) => l.method === 'tasks/get' && l.taskId === taskId)).toBe(true);
    const n = polls.lines[0]!.n;
    await e.bridge.request({
      type: 'trafficWindow',
      window: { ...ask, filter: polls.filter, follow: false, opened: n },
    });
    const opened = windows().at(-1)!.opened;
    expect(opened?.n).toBe(n);
    expect(opened?.first.message).toMatchObject({ method: 'tasks/get', params: { taskId } });
    expect(opened?.answer?.message).toMatchObject({ result: { taskId } });

    // Closed: no window, whatever comes.
    await e.bridge.request({ type: 'trafficWindow', window: null });
    const closedAt = e.batches.length;
    await e.bridge.request({ type: 'syncList' });
    await waitFor(() => e.batches.slice(closedAt).some((b) => b.trafficCount !== undefined), 5000);
    expect(e.batches.slice(closedAt).some((b) => b.trafficWindow)).toBe(false);
  });
});
