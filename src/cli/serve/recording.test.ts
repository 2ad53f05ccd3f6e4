import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Trace } from '../../engine/trace/schema';
import { readRecording } from './recording';

const demo = JSON.parse(
  readFileSync(new URL('../../../public/demo-trace.json', import.meta.url), 'utf8'),
) as Trace;

describe('readRecording', () => {
  it('reads the demo trace: each tool its runs, the question on its input_required step, the endings', () => {
    const recording = readRecording(demo);
    expect(recording.era).toBe('2025-11-25');
    expect(recording.pushes).toBe(true);
    expect(recording.plans.get('slow_job')).toHaveLength(2);
    const ask = recording.plans.get('ask_user')![0]!;
    const waits = ask.steps.filter((s) => s.status === 'input_required');
    expect(waits.flatMap((s) => s.questions)).toEqual([
      expect.objectContaining({
        method: 'elicitation/create',
        params: expect.objectContaining({ message: 'Which colour should the report use?' }),
      }),
    ]);
    // The served task has its own id: the recorded related-task _meta is not carried over.
    expect(waits[0]!.questions[0]!.params._meta).toBeUndefined();
    expect(ask.steps.at(-1)!.status).toBe('completed');
    expect(ask.ending?.result).toMatchObject({ content: [{ type: 'text', text: 'You answered: teal' }] });
    const flaky = recording.plans.get('flaky_job')![0]!;
    expect(flaky.ending?.result).toMatchObject({ isError: true });
    expect(recording.plans.has('echo')).toBe(false);
  });

  it('takes a 2026-07-28 ending from the traffic: the JSON-RPC error of a failed task, not its rendering', () => {
    const task = demo.tasks.find((t) => t.tool === 'flaky_job')!;
    const trace: Trace = {
      ...demo,
      receiver: { ...demo.receiver, era: '2026-07-28' },
      traffic: [
        {
          seq: 1,
          at: 0,
          wallTime: 0,
          direction: 'in',
          kind: 'notification',
          method: 'notifications/tasks',
          bytes: 10,
          message: {
            jsonrpc: '2.0',
            method: 'notifications/tasks',
            params: { taskId: task.taskId, status: 'failed', error: { code: -32603, message: 'boom' } },
          },
        } as Trace['traffic'][number],
      ],
    };
    const recording = readRecording(trace);
    expect(recording.plans.get('flaky_job')![0]!.ending).toEqual({
      error: { code: -32603, message: 'boom' },
    });
    expect(recording.pushes).toBe(true);
  });
});
