import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Batch, ReplayNews } from '../../src/engine/messages';
import { parseTraceText } from '../../src/engine/trace/schema';
import type { Trace } from '../../src/engine/trace/schema';
import { applyTaskChanges } from '../../src/tracker/task-changes';
import { createTasksStore, type TasksStore } from '../../src/tracker/task-store';
import { engineOverChannel } from '../helpers/engine-channel';
import { stopAfterEach } from '../helpers/cleanups';
import { waitFor } from '../helpers/wait';

/**
 * The replay bar's scrubber and Play/Pause through the engine's message boundary, on the demo trace the empty
 * task list links to: every seek is a fresh start under a new connection id (the page's stores start clean
 * under it), filled at once up to the point sought, and a paused replay stays paused there. Replies come after
 * the batch that carries their effects, so what the page holds when a seek is answered is what it shows. (The
 * pacing itself, 1× against 4×, pause and play, is the replay clock's: src/engine/trace/replay.test.ts, with fake
 * time; the page's clock following it: src/trace-files/open-trace.test.ts.)
 */

const later = stopAfterEach();

function demoTrace(): Trace {
  const text = readFileSync(new URL('../../public/demo-trace.json', import.meta.url), 'utf8');
  const parsed = parseTraceText(text);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return parsed.trace;
}

/** The page's side: one task store per connection id, as the page starts clean for every seek. */
function replayPage() {
  const engine = engineOverChannel({ history: async () => null });
  later(() => engine.close());
  const stores = new Map<number, TasksStore>();
  const news = new Map<number, ReplayNews>();
  const store = (id: number) => {
    let s = stores.get(id);
    if (!s) stores.set(id, (s = createTasksStore()));
    return s;
  };
  engine.bridge.onBatch((batches: Batch[]) => {
    for (const batch of batches) {
      if (batch.tasks) applyTaskChanges(store(batch.connectionId), batch.tasks);
      if (batch.replay) news.set(batch.connectionId, batch.replay);
    }
  });
  return {
    engine,
    news: (id: number) => news.get(id),
    order: (id: number) => store(id).getState().order,
    status: (id: number, taskId: string) => store(id).getState().tasks.get(taskId)?.status,
  };
}

describe('seeking in a replay, through the engine', () => {
  it('seeks back to the start (no task yet), to a point while paused (tasks as they stood), and to the end (every task as recorded)', async () => {
    const trace = demoTrace();
    const cancelled = trace.tasks.find((t) => t.status === 'cancelled');
    if (!cancelled) throw new Error('the demo trace has no cancelled task');
    const page = replayPage();
    const seek = (connectionId: number, at: number, paused: boolean) =>
      page.engine.bridge.request({ type: 'replaySeek', connectionId, at, speed: 1, paused });
    const asRecorded = (id: number) => {
      expect(page.order(id)).toEqual(trace.tasks.map((t) => t.taskId));
      for (const task of trace.tasks) expect(page.status(id, task.taskId), task.tool).toBe(task.status);
    };

    const opened = await page.engine.bridge.request({
      type: 'replay',
      connectionId: 1,
      trace: JSON.stringify(trace),
      speed: 'instant',
    });
    if (!opened.ok) throw new Error(opened.errors.join('\n'));
    // The task a newcomer sees open: the first slow_job, with statuses, progress, a log line and its result.
    expect(opened.info.featuredTaskId).toBe(trace.tasks[0]?.taskId);
    expect(trace.tasks[0]?.tool).toBe('slow_job');
    await waitFor(() => page.news(1)?.ended === true, 10_000);
    asRecorded(1);

    // Back to the start, paused: nothing was seen yet, and none of the first run's tasks comes along.
    expect(await seek(2, trace.startedAt, true)).toBe(true);
    expect(page.news(2)).toMatchObject({ at: trace.startedAt, playing: false, ended: false });
    expect(page.order(2)).toEqual([]);

    // 2 s in, paused: the long job works (from 1.3 s until the recording cancels it at 4.3 s).
    const at = trace.startedAt + 2000;
    expect(await seek(3, at, true)).toBe(true);
    expect(page.news(3)).toMatchObject({ at, playing: false, ended: false });
    expect(page.order(3)).toEqual(trace.tasks.filter((t) => t.firstSeenAt <= at).map((t) => t.taskId));
    expect(page.status(3, cancelled.taskId)).toBe('working');

    // To the end: every task as recorded, and the replay ended.
    const end = opened.info.endedAt;
    expect(await seek(4, end, false)).toBe(true);
    await waitFor(() => page.news(4)?.ended === true, 10_000);
    asRecorded(4);
  }, 30_000);
});
