import { describe, expect, it } from 'vitest';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { engineOverChannel } from '../helpers/engine-channel';

/**
 * A fault the active check finds, as the report card gets it: the broken rule, and a first offence the card can
 * open — a task the engine tracked and the page can show, at a moment of that task's own timeline. (Which rule
 * each fault breaks is active-check.test.ts's; what the card does with the offence, ReportCard.test.tsx's.)
 */
const settings = { paused: false, minPollIntervalMs: 0 };
const later = stopAfterEach();

describe('the first offence of a fault the check finds', () => {
  it('?faults=terminal-cancel-accepted: the rule fails, and its offence names the check’s task and a moment of its timeline', async () => {
    const receiver = await demoFor(later);
    const engine = engineOverChannel();
    later(engine.close);
    const connected = await engine.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: `${receiver.url}?faults=terminal-cancel-accepted`,
      headers: {},
      settings,
    });
    expect(connected.ok).toBe(true);
    const reply = await engine.bridge.request({ type: 'checkReceiver', tool: 'job' });
    if (!reply.ok) throw new Error(reply.reason);
    const fails = reply.state.findings.filter((f) => f.verdict === 'fail');
    expect(fails.map((f) => f.id)).toEqual(['terminal-cancel-refused']);
    const offence = fails[0]!.firstOffence!;
    expect(offence.detail).toBeTruthy();

    // The task it names is one the check created with the tool picked, and reached the page as a record.
    const taskId = offence.taskId!;
    expect(taskId).toBeDefined();
    const record = engine.batches
      .flatMap((b) => b.tasks?.changes ?? [])
      .map((c) => c.task)
      .filter((t) => t.taskId === taskId)
      .at(-1);
    expect(record?.tool).toBe('job');

    // Its moment is the cancel sent after the task was seen to end: on the task's own timeline, after its
    // terminal observation, so the page opens the task at (next to) that observation.
    const entries = engine.batches
      .flatMap((b) => b.tasks?.changes ?? [])
      .filter((c) => c.task.taskId === taskId)
      .flatMap((c) => c.newEntries);
    const ended = entries.find((e) => e.kind === 'observation' && e.status === 'completed');
    expect(ended).toBeDefined();
    expect(offence.at).toBeGreaterThanOrEqual(ended!.at);
    expect(offence.at).toBeLessThanOrEqual(Date.now());
  }, 30_000);
});
