import { describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import type { Batch } from '../../src/engine/messages';
import type { TaskListWindow, TaskViewRequest } from '../../src/engine/task-views';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { waitFor } from '../helpers/wait';
import { engineOverChannel } from '../helpers/engine-channel';

const settings = { paused: false, minPollIntervalMs: 0 };
const later = stopAfterEach();

/** The demo receiver and an engine over a real MessageChannel, both stopped after the test. */
async function started() {
  const receiver = await demoFor(later);
  const engine = engineOverChannel();
  later(engine.close);
  return { url: receiver.url, e: engine };
}

const view = (change: Partial<TaskViewRequest>): TaskViewRequest => ({
  all: false,
  filter: 'all',
  query: '',
  start: 0,
  end: 2,
  overview: false,
  ...change,
});

const lastList = (batches: Batch[]): TaskListWindow | undefined =>
  batches.findLast((b) => b.taskList)?.taskList;

const held = (e: ReturnType<typeof engineOverChannel>) => [...e.tasks.getState().tasks.keys()].sort();

/** Four tasks of the demo receiver, run to their end, while the page shows the list's first two rows. */
async function fourTasks(
  e: ReturnType<typeof engineOverChannel>,
  url: string,
): Promise<{ ids: string[]; fourAt: number }> {
  await e.bridge.request({ type: 'taskView', view: view({}) });
  const connected = await e.bridge.request({ type: 'connect', connectionId: 1, url, headers: {}, settings });
  expect(connected.ok).toBe(true);
  const { tools } = await e.bridge.request({ type: 'listTools' });
  const slow = tools.find((t) => t.name === 'slow_job') as ToolInfo;
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const run = await e.bridge.request({
      type: 'run',
      tool: slow,
      args: { durationMs: 200, steps: 2, pollIntervalMs: 50 },
    });
    if (!run.ok || run.taskId === undefined) throw new Error('the demo receiver made no task');
    ids.push(run.taskId);
  }
  // From here on the first two tasks are out of the rows shown, still being polled.
  const fourAt = e.batches.length;
  // The engine counts for the page: every task completed, none of them on the page but the rows it shows.
  await waitFor(() => lastList(e.batches)?.counts.completed === 4, 15_000);
  return { ids, fourAt };
}

describe('the page holds what it shows of the tasks', () => {
  it('records cross for the rows asked for and the open task; scrolling brings the next rows before its reply', async () => {
    const { url, e } = await started();
    const four = await fourTasks(e, url);
    const [a, b, c, d] = four.ids;
    // Newest first: the first two rows are the last two tasks run.
    expect(lastList(e.batches)).toMatchObject({ total: 4, start: 0, ids: [d, c] });
    await waitFor(() => held(e).join() === [c, d].sort().join(), 5000);
    // Once out of view, the other two tasks' polls and results did not cross.
    const since = e.batches.slice(four.fourAt);
    const crossed = new Set(since.flatMap((batch) => batch.tasks?.changes.map((ch) => ch.task.taskId) ?? []));
    expect(crossed.has(a!) || crossed.has(b!)).toBe(false);
    expect(since.flatMap((batch) => batch.results.map(([id]) => id))).not.toContain(a);

    // Scrolled on: the reply comes after the batch that brings the rows asked for, whole, with their results.
    const from = e.batches.length;
    await e.bridge.request({ type: 'taskView', view: view({ start: 2, end: 4 }) });
    expect(held(e)).toEqual([a, b].sort());
    const after = e.batches.slice(from);
    expect(after.flatMap((batch) => batch.tasks?.removed ?? []).sort()).toEqual([c, d].sort());
    // (A result of the rows before may still have come just before the scroll was taken.)
    expect(after.flatMap((batch) => batch.results.map(([id]) => id))).toEqual(expect.arrayContaining([a, b]));
    const record = e.tasks.getState().tasks.get(a!);
    expect(record?.status).toBe('completed');
    // Whole: its first observation (the create answer) and its result, not only what changed since.
    expect(record?.entries[0]).toMatchObject({ kind: 'observation', source: 'create' });
    expect(record?.entries.some((entry) => entry.kind === 'result')).toBe(true);
    expect(lastList(e.batches)).toMatchObject({ start: 2, ids: [b, a] });

    // The open task is held wherever the list is.
    await e.bridge.request({ type: 'taskView', view: view({ start: 2, end: 4, detail: d }) });
    expect(held(e)).toEqual([a, b, d].sort());
    expect(lastList(e.batches)?.detail).toBe(d);
  });

  it('filters, searches and counts in the engine; every record for the report card, in the tracker’s order', async () => {
    const { url, e } = await started();
    const { ids } = await fourTasks(e, url);
    await e.bridge.request({ type: 'taskView', view: view({ filter: 'working' }) });
    expect(lastList(e.batches)).toMatchObject({ filter: 'working', total: 0, ids: [] });
    expect(held(e)).toEqual([]);
    await e.bridge.request({ type: 'taskView', view: view({ query: ids[1]!.slice(0, 12) }) });
    expect(lastList(e.batches)?.ids).toContain(ids[1]);

    await e.bridge.request({ type: 'taskView', view: view({ all: true }) });
    expect(e.tasks.getState().order).toEqual(ids);
    expect(held(e)).toEqual([...ids].sort());
    expect(lastList(e.batches)?.all).toBe(true);
  });

  it('the overview gets a summary per task, not its record', async () => {
    const { url, e } = await started();
    const { ids } = await fourTasks(e, url);
    const from = e.batches.length;
    await e.bridge.request({ type: 'taskView', view: view({ overview: true }) });
    const overview = e.batches.slice(from).find((batch) => batch.overview)?.overview;
    expect(overview?.sync).toBe(true);
    expect(overview?.order).toEqual(ids);
    const summary = overview?.changed.find((s) => s.taskId === ids[0]);
    expect(summary).toMatchObject({ shown: 'completed', live: false, tool: 'slow_job' });
    expect(summary?.segments.at(-1)?.status).toBe('completed');
    expect(summary?.lastPollAt).toBeGreaterThan(0);
    expect(summary).not.toHaveProperty('entries');
  });

  it('after Disconnect the closed connection’s tasks still answer the page’s views, until the next connection', async () => {
    const { url, e } = await started();
    const { ids } = await fourTasks(e, url);
    const [a, b] = ids;
    await e.bridge.request({ type: 'disconnect' });
    await e.bridge.request({ type: 'taskView', view: view({ start: 2, end: 4, detail: ids[3] }) });
    expect(lastList(e.batches)).toMatchObject({ total: 4, start: 2, ids: [b, a] });
    expect(held(e)).toEqual([a, b, ids[3]].sort());
    expect(e.batches.findLast((batch) => batch.results.length > 0)?.results.map(([id]) => id)).toEqual(
      expect.arrayContaining([a, b]),
    );
    // A new connection's tasks replace them.
    const again = await e.bridge.request({ type: 'connect', connectionId: 2, url, headers: {}, settings });
    expect(again.ok).toBe(true);
    await e.bridge.request({ type: 'taskView', view: view({}) });
    expect(e.batches.findLast((batch) => batch.taskList)?.connectionId).toBe(2);
  });
});
