import { describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import type { Batch } from '../../src/engine/messages';
import type { TaskListWindow, TaskViewRequest } from '../../src/engine/task-views';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { waitFor } from '../helpers/wait';
import { engineOverChannel } from '../helpers/engine-channel';

/**
 * How each of the demo receiver's tasks ends, as the page hears it through the engine's message boundary:
 * a failure with its error result, a ttl that runs out and a purge, a cancel, an id the receiver does not know,
 * a tool that may not run as a task; and the list the page draws of them (filters, search, polling off screen).
 */

const settings = { paused: false, minPollIntervalMs: 0 };
const later = stopAfterEach();
type Engine = ReturnType<typeof engineOverChannel>;

/** An engine connected to a demo receiver of its own, both stopped after the test, and the receiver's tools. */
async function connected() {
  const receiver = await demoFor(later);
  const e = engineOverChannel();
  later(e.close);
  const reply = await e.bridge.request({
    type: 'connect',
    connectionId: 1,
    url: receiver.url,
    headers: {},
    settings,
  });
  expect(reply.ok).toBe(true);
  const { tools } = await e.bridge.request({ type: 'listTools' });
  const tool = (name: string) => tools.find((t) => t.name === name) as ToolInfo;
  return { e, tool };
}

/** Runs `tool` as a task; its id. */
async function run(e: Engine, tool: ToolInfo, args: Record<string, unknown>): Promise<string> {
  const reply = await e.bridge.request({ type: 'run', tool, args });
  if (!reply.ok || reply.taskId === undefined)
    throw new Error(reply.ok ? 'answered at once' : reply.error.message);
  return reply.taskId;
}

const record = (e: Engine, id: string) => e.tasks.getState().tasks.get(id);
/** The last result of `id` a batch brought the page. */
const resultOf = (e: Engine, id: string) =>
  e.batches.flatMap((b) => b.results).findLast(([taskId]) => taskId === id)?.[1];
const snapshotOf = (e: Engine, id: string) =>
  e.batches.flatMap((b) => b.snapshots).findLast(([taskId]) => taskId === id)?.[1];
const textOf = (result: Record<string, unknown> | null | undefined) =>
  JSON.stringify((result as { content?: unknown } | null | undefined)?.content ?? null);
/** The tasks/get requests the engine sent about `id`. */
const pollsOf = (e: Engine, id: string) =>
  e.batches
    .flatMap((b) => b.traffic)
    .filter(
      (t) =>
        t.direction === 'out' &&
        t.method === 'tasks/get' &&
        JSON.stringify(t.message ?? null).includes(JSON.stringify(id)),
    ).length;

describe('how the demo receiver’s tasks end, as the page hears it', () => {
  it('flaky_job: failed, its statusMessage says why, and its error result reaches the page', async () => {
    const { e, tool } = await connected();
    const id = await run(e, tool('flaky_job'), { failAfterMs: 300, reason: 'disk full' });
    await waitFor(() => record(e, id)?.result.state === 'fetched', 10_000);
    expect(record(e, id)).toMatchObject({ status: 'failed', lifecycle: 'terminal' });
    expect(snapshotOf(e, id)?.statusMessage).toBe('Failed: disk full');
    const result = resultOf(e, id);
    expect(result?.value.isError).toBe(true);
    expect(textOf(result?.value.result)).toContain('flaky_job failed: disk full');
  });

  it('short_ttl_job: its ttl runs out after it completes, the receiver purges it, and the result stays', async () => {
    const { e, tool } = await connected();
    const id = await run(e, tool('short_ttl_job'), { ttlMs: 3000, durationMs: 300 });
    await waitFor(() => record(e, id)?.result.state === 'fetched', 10_000);
    expect(snapshotOf(e, id)?.ttl).toBe(3000);
    await waitFor(() => record(e, id)?.lifecycle === 'purged', 20_000);
    expect(record(e, id)?.entries.some((entry) => entry.kind === 'purged')).toBe(true);
    // What was fetched before the purge is kept, and nothing is polled any more.
    expect(textOf(resultOf(e, id)?.value.result)).toContain('Done.');
    expect(record(e, id)?.nextPollInMs).toBeNull();
  });

  it('cancel of a working task: it ends cancelled, with nothing left to cancel or poll', async () => {
    const { e, tool } = await connected();
    // It works for ten minutes: running whenever the test cancels it.
    const id = await run(e, tool('slow_job'), { durationMs: 600_000, steps: 2, pollIntervalMs: 200 });
    await waitFor(() => (record(e, id)?.pollCount ?? 0) >= 1, 5000);
    expect(record(e, id)?.status).toBe('working');
    expect(await e.bridge.request({ type: 'cancel', taskId: id })).toBeNull();
    expect(record(e, id)).toMatchObject({ status: 'cancelled', lifecycle: 'terminal', nextPollInMs: null });
  });

  it('an id the receiver does not know: said once, after one poll, and never asked about again', async () => {
    const { e, tool } = await connected();
    expect(await e.bridge.request({ type: 'track', taskId: 'no-such-task' })).toBe(true);
    await waitFor(() => record(e, 'no-such-task')?.lifecycle === 'unknown', 5000);
    const unknown = record(e, 'no-such-task')!;
    expect(unknown.lastError?.message).toContain('does not know this task id');
    expect(unknown.pollCount).toBe(1);
    expect(unknown.nextPollInMs).toBeNull();
    // One line on its timeline says so, not one per poll.
    expect(unknown.entries.map((entry) => entry.kind)).toEqual(['purged']);
    // A task run to its end after it, polled every 100 ms, gives the engine many chances to ask again.
    const other = await run(e, tool('slow_job'), { durationMs: 800, steps: 2, pollIntervalMs: 100 });
    await waitFor(() => record(e, other)?.result.state === 'fetched', 10_000);
    expect(record(e, other)!.pollCount).toBeGreaterThan(3);
    expect(record(e, 'no-such-task')?.pollCount).toBe(1);
    expect(pollsOf(e, 'no-such-task')).toBe(1);
  });

  it('a tool that forbids tasks cannot run as one: refused with the reason, and nothing is sent', async () => {
    const { e, tool } = await connected();
    expect(tool('echo').taskSupport).toBe('forbidden');
    const before = e.batches.flatMap((b) => b.traffic).filter((t) => t.method === 'tools/call').length;
    const reply = await e.bridge.request({ type: 'run', tool: tool('echo'), args: { text: 'hi' } });
    expect(reply.ok).toBe(false);
    if (!reply.ok) expect(reply.error.message).toContain('taskSupport: forbidden');
    expect(e.tasks.getState().order).toEqual([]);
    expect(e.batches.flatMap((b) => b.traffic).filter((t) => t.method === 'tools/call')).toHaveLength(before);
  });
});

const view = (change: Partial<TaskViewRequest>): TaskViewRequest => ({
  all: false,
  filter: 'all',
  query: '',
  start: 0,
  end: 1,
  overview: false,
  ...change,
});
const lastList = (batches: Batch[]): TaskListWindow | undefined =>
  batches.findLast((b) => b.taskList)?.taskList;

describe('the task list the page draws', () => {
  it('filters by status and searches by tool, counting tasks polled off screen, and still does after Disconnect', async () => {
    const { e, tool } = await connected();
    // The page draws one row: the newest task; the older one is off screen from the start.
    await e.bridge.request({ type: 'taskView', view: view({}) });
    const flaky = await run(e, tool('flaky_job'), { failAfterMs: 300 });
    const slow = await run(e, tool('slow_job'), { durationMs: 600, steps: 2, pollIntervalMs: 100 });
    // The engine polls both to their end and counts them, though only the newest is on screen.
    await waitFor(() => {
      const counts = lastList(e.batches)?.counts;
      return counts?.failed === 1 && counts.completed === 1;
    }, 15_000);
    expect(lastList(e.batches)?.ids).toEqual([slow]);
    expect(e.tasks.getState().tasks.has(flaky)).toBe(false);
    expect(record(e, slow)?.status).toBe('completed');

    await e.bridge.request({ type: 'taskView', view: view({ filter: 'failed', end: 10 }) });
    expect(lastList(e.batches)).toMatchObject({ filter: 'failed', total: 1, ids: [flaky] });
    expect(record(e, flaky)?.status).toBe('failed');
    await e.bridge.request({ type: 'taskView', view: view({ query: 'slow', end: 10 }) });
    expect(lastList(e.batches)).toMatchObject({ total: 1, ids: [slow] });

    // Disconnected, what was seen stays: the engine still filters and searches the closed connection's tasks.
    await e.bridge.request({ type: 'disconnect' });
    await e.bridge.request({ type: 'taskView', view: view({ end: 10 }) });
    expect(lastList(e.batches)).toMatchObject({ total: 2, ids: [slow, flaky] });
    await e.bridge.request({ type: 'taskView', view: view({ filter: 'failed', end: 10 }) });
    expect(lastList(e.batches)).toMatchObject({ total: 1, ids: [flaky] });
    await e.bridge.request({ type: 'taskView', view: view({ query: 'flaky', end: 10 }) });
    expect(lastList(e.batches)).toMatchObject({ total: 1, ids: [flaky] });
  });
});
