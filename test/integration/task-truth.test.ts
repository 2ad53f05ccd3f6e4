import { describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import type { Batch } from '../../src/engine/messages';
import type { TaskListWindow, TaskViewRequest } from '../../src/engine/task-views';
import { judgeTask } from '../../src/rules/task-judge';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { waitFor } from '../helpers/wait';
import { engineOverChannel } from '../helpers/engine-channel';

/**
 * What a task's record says once the receiver lets it go, through the engine's message boundary against the
 * demo receiver: a purge before the ttl is a broken MUST on that task, and an ended task purged at its ttl
 * keeps its outcome (its filter still finds it) with the purge as a second fact. How these are drawn (the rule's
 * line, the timeline's marks, the row's purged marker) is held in TaskDetail.test.tsx and TaskRow.test.tsx.
 */
const settings = { paused: false, minPollIntervalMs: 0 };
const later = stopAfterEach();

const view = (change: Partial<TaskViewRequest>): TaskViewRequest => ({
  all: false,
  filter: 'all',
  query: '',
  start: 0,
  end: 10,
  overview: false,
  ...change,
});
const lastList = (batches: Batch[]): TaskListWindow | undefined =>
  batches.findLast((b) => b.taskList)?.taskList;

async function connected(url: string) {
  const e = engineOverChannel({ history: async () => null });
  later(e.close);
  await e.bridge.request({ type: 'taskView', view: view({}) });
  const reply = await e.bridge.request({ type: 'connect', connectionId: 1, url, headers: {}, settings });
  expect(reply.ok).toBe(true);
  const { tools } = await e.bridge.request({ type: 'listTools' });
  const run = async (name: string, args: Record<string, unknown>, ttl?: number) => {
    const started = await e.bridge.request({
      type: 'run',
      tool: tools.find((t) => t.name === name) as ToolInfo,
      args,
      ttl,
    });
    if (!started.ok || started.taskId === undefined) throw new Error(`${name} made no task`);
    return started.taskId;
  };
  const task = (id: string) => e.tasks.getState().tasks.get(id);
  const snapshot = (id: string) => e.batches.flatMap((b) => b.snapshots).findLast(([t]) => t === id)?.[1];
  return { e, run, task, snapshot };
}

describe('what a task says after the receiver lets it go', () => {
  it('an early purge: the task is purged while working, and the rule it broke is judged on its record', async () => {
    const receiver = await demoFor(later);
    const { run, task, snapshot } = await connected(`${receiver.url}?faults=purge-early`);
    // Gone half way through a 1.2 s run, with 8 s of ttl asked for: about 7 s before its deadline.
    const id = await run('job', { durationMs: 1200, pollInterval: 100 }, 8000);
    await waitFor(() => task(id)?.lifecycle === 'purged', 10_000);
    const record = task(id)!;
    // A task gone before it ended has no outcome: "purged" is what it shows.
    expect(record.status).toBe('working');
    expect(record.entries.filter((x) => x.kind === 'purged')).toHaveLength(1);
    expect(snapshot(id)?.ttl).toBe(8000);
    // What the page judges from the record and snapshot it was sent (useTaskRuleBreaks).
    const breaks = judgeTask({
      task: record,
      snapshot: snapshot(id),
      era: '2025-11-25',
      clockOffsetMs: 0,
      clockSamples: 1,
    });
    const early = breaks.find((b) => b.id === 'ttl-not-purged-early');
    expect(early).toMatchObject({ strength: 'MUST' });
    expect(early?.detail).toMatch(/^purged \d s before its ttl ran out$/);
    expect(early?.at).toBe(record.entries.find((x) => x.kind === 'purged')?.at);
    expect(early?.spec).toMatch(
      /modelcontextprotocol\.io\/specification\/2025-11-25\/basic\/utilities\/tasks#/,
    );
  }, 20_000);

  it('failed and cancelled tasks keep their outcome after their ttl: their filters still find them, purged counts both', async () => {
    const receiver = await demoFor(later);
    const { e, run, task } = await connected(receiver.url);
    const failed = await run('flaky_job', { failAfterMs: 200, ttlMs: 1500 });
    const cancelled = await run('slow_job', {
      durationMs: 30_000,
      steps: 1,
      pollIntervalMs: 100,
      ttlMs: 1500,
    });
    await waitFor(() => task(failed)?.result.state === 'fetched', 10_000);
    const result = e.batches.flatMap((b) => b.results).find(([t]) => t === failed)?.[1];
    expect(JSON.stringify(result?.value.result)).toContain('flaky_job failed');
    // The reply is the refusal, if any.
    expect(await e.bridge.request({ type: 'cancel', taskId: cancelled })).toBeNull();
    await waitFor(() => task(cancelled)?.status === 'cancelled', 10_000);

    // Both are purged once their ttl has run out (the demo receiver purges at its ttl).
    await waitFor(
      () => task(failed)?.lifecycle === 'purged' && task(cancelled)?.lifecycle === 'purged',
      15_000,
    );
    expect(task(failed)?.status).toBe('failed');
    expect(task(cancelled)?.status).toBe('cancelled');
    await waitFor(() => lastList(e.batches)?.counts.purged === 2, 5000);
    expect(lastList(e.batches)?.counts).toMatchObject({ failed: 1, cancelled: 1, purged: 2 });
    await e.bridge.request({ type: 'taskView', view: view({ filter: 'failed' }) });
    expect(lastList(e.batches)).toMatchObject({ filter: 'failed', total: 1, ids: [failed] });
    await e.bridge.request({ type: 'taskView', view: view({ filter: 'cancelled' }) });
    expect(lastList(e.batches)).toMatchObject({ filter: 'cancelled', total: 1, ids: [cancelled] });
    await e.bridge.request({ type: 'taskView', view: view({ filter: 'purged' }) });
    expect(lastList(e.batches)?.ids.sort()).toEqual([failed, cancelled].sort());
  }, 30_000);
});
