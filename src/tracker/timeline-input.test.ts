import { describe, expect, it } from 'vitest';
import { buildTimeline } from './timeline-model';
import { newTrackedTask, type ObservationEntry, type TrackedTask } from './task-store';

const obs = (at: number, status: ObservationEntry['status']): ObservationEntry => ({
  kind: 'observation',
  at,
  source: 'poll',
  sentAt: at - 10,
  latencyMs: 10,
  status,
  warnings: [],
});

const task = (entries: TrackedTask['entries']): TrackedTask =>
  newTrackedTask({ taskId: 't', connectionId: 1, origin: 'created', firstSeenAt: 0, entries });

describe('an input round on the timeline', () => {
  it('draws the wait as its own segment, and marks the question and the answer', () => {
    const model = buildTimeline(
      task([
        obs(0, 'working'),
        obs(1000, 'input_required'),
        { kind: 'input', at: 1100, method: 'elicitation/create', phase: 'asked' },
        { kind: 'input', at: 3000, method: 'elicitation/create', phase: 'answered', detail: 'accept' },
        obs(3200, 'working'),
        obs(4000, 'completed'),
      ]),
      5000,
    );
    expect(model.segments.map((s) => s.status)).toEqual([
      'working',
      'input_required',
      'working',
      'completed',
    ]);
    const inputs = model.marks.filter((m) => m.kind === 'input');
    expect(inputs.map((m) => m.at)).toEqual([1100, 3000]);
    expect(inputs[0]?.detail).toMatch(/^elicitation\/create .*: asked$/);
    expect(inputs[1]?.detail).toMatch(/: answered \(accept\)$/);
  });
});
