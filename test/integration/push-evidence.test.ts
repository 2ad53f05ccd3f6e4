import { describe, expect, it } from 'vitest';
import { isTerminal, type ToolInfo, type TrafficEvent } from '../../src/mcp';
import { evaluateReport } from '../../src/rules/evaluate';
import type { ObservationEntry, TrackedTask } from '../../src/tracker/task-store';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { engineOverChannel } from '../helpers/engine-channel';
import { waitFor } from '../helpers/wait';

/** Polling paused: what the tracker learns of a task's end is the receiver's push, and listings asked for. */
const settings = { paused: true, minPollIntervalMs: 0 };
const later = stopAfterEach();

const pushedEnd = (task: TrackedTask | undefined) =>
  task?.entries.find(
    (e): e is ObservationEntry =>
      e.kind === 'observation' && e.source === 'notification' && isTerminal(e.status),
  );

/** A push said the task ended, and a listing asked after that push arrived says working. */
const reopenedAfterPush = (task: TrackedTask | undefined) => {
  const ended = task?.entries.find(
    (e) => e.kind === 'observation' && e.source === 'notification' && isTerminal(e.status),
  );
  return (
    ended !== undefined &&
    task!.entries.some(
      (e) =>
        e.kind === 'observation' &&
        e.source === 'list' &&
        e.status === 'working' &&
        (e.sentAt ?? e.at) >= ended.at,
    )
  );
};

describe('statuses seen in a push are judged', () => {
  it('?faults=terminal-changes: a pushed end, then a listing saying working, fails "Only legal status transitions"', async () => {
    const receiver = await demoFor(later);
    const engine = engineOverChannel();
    later(engine.close);
    const { bridge, tasks, batches } = engine;
    const url = `${receiver.url}?faults=terminal-changes`;
    const connected = await bridge.request({ type: 'connect', connectionId: 1, url, headers: {}, settings });
    if (!connected.ok) throw new Error('not connected');
    const { tools } = await bridge.request({ type: 'listTools' });
    const job = tools.find((t: ToolInfo) => t.name === 'job');
    if (!job) throw new Error('the demo has no job tool');
    const run = await bridge.request({ type: 'run', tool: job, args: {} });
    if (!run.ok || run.taskId === undefined) throw new Error('job did not start as a task');
    const taskId = run.taskId;
    // The job ends in 0.6 s and its end is pushed; 0.3 s after its end the receiver says working again.
    await waitFor(() => pushedEnd(tasks.getState().tasks.get(taskId)) !== undefined, 10_000);
    const endedAt = Date.parse(pushedEnd(tasks.getState().tasks.get(taskId))?.lastUpdatedAt ?? '');
    expect(endedAt).not.toBeNaN();
    // No listing before then: one would say the end itself, and an answer saying it would be judged even by
    // the old answers-only rule. Waited for is the receiver's own moment (same machine, same clock).
    await waitFor(() => Date.now() > endedAt + 350, 5000);
    const deadline = Date.now() + 5000;
    while (!reopenedAfterPush(tasks.getState().tasks.get(taskId))) {
      if (Date.now() > deadline) throw new Error('no listing said working after the pushed end');
      await bridge.request({ type: 'syncList' });
      await new Promise((r) => setTimeout(r, 25));
    }
    // The end was seen in the push alone: no answer said it.
    const entries = tasks.getState().tasks.get(taskId)?.entries ?? [];
    expect(
      entries.filter((e) => e.kind === 'observation' && e.source !== 'notification' && isTerminal(e.status)),
    ).toEqual([]);
    const state = tasks.getState();
    const traffic: TrafficEvent[] = batches.flatMap((b) => b.traffic);
    const card = evaluateReport({
      receiver: { url, era: '2025-11-25' },
      support: connected.support,
      tools,
      tasks: state.tasks.values(),
      results: new Map(),
      traffic,
      clockOffsetMs: state.clockOffsetMs,
      clockSamples: state.clockSamples,
      now: Date.now(),
    });
    const rule = card.rules.find((r) => r.id === 'status-transitions');
    expect(rule?.verdict, rule?.reason).toBe('fail');
    expect(rule?.firstOffence).toMatchObject({
      taskId,
      detail: expect.stringMatching(/→ working \(list\)$/),
    });
  });
});
