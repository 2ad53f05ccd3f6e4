import { describe, expect, it } from 'vitest';
import { ReplaySession } from '../../src/engine/trace/replay';
import type { Trace } from '../../src/engine/trace/schema';
import type { ReplaySpeed } from '../../src/engine/messages';
import type { TimelineEntry } from '../../src/tracker/task-store';
import { fakeRealTimers } from '../helpers/fake-real-timers';
import { startRecorder } from '../helpers/record-trace';
import { waitFor } from '../helpers/wait';

/**
 * A replay keeps the time of the recording: what a trace holds of each task — create → complete,
 * complete → result fetched and the result's latency, complete → purge, the gaps between polls, when pushes
 * came — is what the replay shows, and it comes at the recorded pace: at 1× as it happened, at 4× in a
 * quarter of the time, at "instant" at once but in the recorded order. The recording is a real run against
 * the demo receiver; the replay runs on fake real time, so the 4× and 1× runs take no waiting.
 */

/** Where an entry came from, to name it in an interval. */
const label = (e: TimelineEntry) =>
  e.kind === 'observation'
    ? `${e.source}:${e.status ?? '?'}`
    : e.kind === 'result'
      ? `result:${e.outcome}`
      : e.kind;

/** The intervals a person reads off one task's timeline, ms. */
function intervals(entries: readonly TimelineEntry[]) {
  const first = entries[0]?.at ?? 0;
  const completed = entries.find(
    (e) => e.kind === 'observation' && (e.status === 'completed' || e.status === 'failed'),
  )?.at;
  const result = entries.find((e) => e.kind === 'result');
  const purged = entries.find((e) => e.kind === 'purged')?.at;
  const polls = entries.filter((e) => e.kind === 'observation' && e.source === 'poll').map((e) => e.at);
  return {
    createToComplete: completed === undefined ? undefined : completed - first,
    completeToResult: completed === undefined || !result ? undefined : result.at - completed,
    resultLatency: result?.kind === 'result' ? result.latencyMs : undefined,
    completeToPurge: completed === undefined || purged === undefined ? undefined : purged - completed,
    pollGaps: polls.slice(1).map((at, i) => at - (polls[i] as number)),
    pushes: entries
      .filter((e) => e.kind === 'observation' && e.source === 'notification')
      .map((e) => e.at - first),
    entries: entries.map((e) => `${label(e)}@${e.at - first}`),
  };
}

/** A short recording with polls, pushes, two results and a purge: a stepped job and a 1 s ttl one. */
async function recordShortFlow(): Promise<Trace> {
  const rec = await startRecorder();
  try {
    await rec.run('slow_job', { durationMs: 900, steps: 3, pollIntervalMs: 200, label: 'timed' });
    await rec.run('short_ttl_job', { ttlMs: 1000, durationMs: 200 });
    await rec.allEnded(10_000);
    await waitFor(
      () => [...rec.engine.tasks.getState().tasks.values()].some((t) => t.lifecycle === 'purged'),
      10_000,
    );
    return rec.trace();
  } finally {
    await rec.close();
  }
}

/** Replays the trace at `speed` on fake real time, noting when (real and replay time) each entry appeared. */
async function replay(trace: Trace, speed: ReplaySpeed) {
  const real = fakeRealTimers();
  const realStart = real.now();
  const seen: Array<{ taskId: string; entry: TimelineEntry; realMs: number }> = [];
  const counts = new Map<string, number>();
  const session = new ReplaySession(
    trace,
    9,
    { traffic: () => undefined, inbox: () => undefined, changed: () => undefined },
    { real: real.timers },
  );
  const store = session.tasks.store;
  const stop = store.subscribe((state) => {
    for (const task of state.tasks.values()) {
      const before = counts.get(task.taskId) ?? 0;
      for (const entry of task.entries.slice(before))
        seen.push({ taskId: task.taskId, entry, realMs: real.now() - realStart });
      counts.set(task.taskId, task.entries.length);
    }
  });
  await session.start(trace.startedAt, speed);
  if (speed !== 'instant') await real.advance((session.end - trace.startedAt) / speed + 100);
  expect(session.news().ended).toBe(true);
  const tasks = store.getState().tasks;
  stop();
  session.dispose();
  return { tasks, seen };
}

describe('a replay keeps the recorded time', () => {
  it('shows every interval as recorded and plays it at 1×, at a quarter of the time at 4×, in order at instant', async () => {
    const trace = await recordShortFlow();
    const purged = trace.tasks.find((t) => t.lifecycle === 'purged');
    expect(purged?.entries.some((e) => e.kind === 'result')).toBe(true);
    const recordedOrder = trace.tasks
      .flatMap((t) => t.entries.map((entry) => ({ taskId: t.taskId, entry })))
      .sort((a, b) => a.entry.at - b.entry.at)
      .map(({ taskId, entry }) => `${taskId} ${label(entry)}@${entry.at}`);

    for (const speed of [1, 4, 'instant'] as const) {
      const { tasks, seen } = await replay(trace, speed);
      for (const recorded of trace.tasks) {
        const replayed = tasks.get(recorded.taskId);
        // What the replay shows: the recorded timestamps, so every interval is the recording's.
        expect(intervals(replayed?.entries ?? []), `${recorded.tool} at ${speed}`).toEqual(
          intervals(recorded.entries),
        );
        expect(replayed?.entries, `${recorded.tool} at ${speed}`).toEqual(recorded.entries);
        expect(replayed?.status).toBe(recorded.status);
        expect(replayed?.lifecycle).toBe(recorded.lifecycle);
      }
      // When it shows it: each entry after its recorded time since the start, divided by the speed.
      expect(seen.map(({ taskId, entry }) => `${taskId} ${label(entry)}@${entry.at}`)).toEqual(recordedOrder);
      for (const { entry, realMs } of seen) {
        const due = speed === 'instant' ? 0 : (entry.at - trace.startedAt) / speed;
        expect(Math.abs(realMs - due), `${label(entry)} at ${speed}`).toBeLessThanOrEqual(1);
      }
    }
  }, 20_000);
});
