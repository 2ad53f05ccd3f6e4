import { describe, expect, it } from 'vitest';
import { buildContext } from './evidence';
import { statusTransitions } from './status-rules';
import { failedResultExplains } from './task-rules';
import { pushesConsistent } from './push-rules';
import type { ObservationEntry, TimelineEntry } from '../tracker/task-store';
import { observation, oneTaskReport } from '../../test/helpers/task-records';

/** A push as the tracker records it: no request behind it, counted from its arrival. */
const push = (at: number, status: ObservationEntry['status'], over: Partial<ObservationEntry> = {}) =>
  observation(at, status, { source: 'notification', sentAt: undefined, latencyMs: undefined, ...over });

const contextOf = (entries: TimelineEntry[]) => buildContext(oneTaskReport(entries));

describe('every observation is evidence of the status path', () => {
  it('a terminal status seen only in a push (its result fetched), then working in a listing asked after it: fail', () => {
    const judged = statusTransitions(
      contextOf([
        observation(100, 'working', { source: 'create' }),
        push(700, 'completed'),
        { kind: 'result', at: 760, sentAt: 710, latencyMs: 50, outcome: 'fetched', warnings: [] },
        observation(1100, 'working', { source: 'list', sentAt: 1090 }),
      ]),
    );
    expect(judged.observations).toBe(3);
    expect(judged.offences).toEqual([
      expect.objectContaining({ taskId: 't1', at: 1100, detail: 'completed → working (list)' }),
    ]);
  });

  it("a terminal push nothing confirmed and the next answer contradicts is the push rule's, not this one", () => {
    const judged = statusTransitions(
      contextOf([
        observation(100, 'working', { source: 'create' }),
        push(700, 'completed'),
        observation(1100, 'working', { source: 'list', sentAt: 1090 }),
      ]),
    );
    expect(judged.offences).toEqual([]);
  });

  it('a terminal push early, an answer asked after it still working, the real end later: the push lied', () => {
    const entries: TimelineEntry[] = [
      observation(100, 'working', { source: 'create' }),
      push(700, 'completed'),
      observation(1100, 'working', { source: 'probe', sentAt: 1090 }),
      { kind: 'result', at: 1500, sentAt: 710, latencyMs: 790, outcome: 'fetched', warnings: [] },
      observation(1600, 'completed', { source: 'probe', sentAt: 1590 }),
    ];
    // The answers that agree once the task really ended do not make the early push true.
    expect(pushesConsistent(contextOf(entries)).offences).toEqual([
      expect.objectContaining({ at: 1100, detail: 'pushed completed, then polled working' }),
    ]);
    expect(statusTransitions(contextOf(entries)).offences).toEqual([]);
  });

  it('working pushed after a terminal answer arrived: fail', () => {
    const judged = statusTransitions(
      contextOf([
        observation(100, 'working', { source: 'create' }),
        observation(700, 'completed'),
        push(900, 'working'),
      ]),
    );
    expect(judged.offences.map((o) => o.detail)).toEqual(['completed → working (notification)']);
  });

  it('a push overtaking an answer in flight is no fault: the answer was asked before the push arrived', () => {
    const judged = statusTransitions(
      contextOf([
        observation(100, 'working', { source: 'create' }),
        push(700, 'completed'),
        // Sent at 650, before the push arrived; answered at 720, still working when the receiver wrote it.
        observation(720, 'working', { sentAt: 650 }),
        observation(900, 'completed'),
      ]),
    );
    expect(judged.offences).toEqual([]);
    expect(judged.observations).toBe(4);
  });
});

describe('a failed status seen only in a push', () => {
  it('makes "a failed task says why" judged: no reason anywhere is an offence', () => {
    const judged = failedResultExplains(
      contextOf([observation(100, 'working', { source: 'create' }), push(700, 'failed')]),
      new Map(),
    );
    expect(judged.observations).toBe(1);
    expect(judged.offences.map((o) => o.detail)).toEqual([
      'failed with no statusMessage and no error text in its result',
    ]);
  });

  it("the push's own statusMessage says why: judged, and passes", () => {
    const judged = failedResultExplains(
      contextOf([
        observation(100, 'working', { source: 'create' }),
        push(700, 'failed', { statusMessage: 'disk full' }),
      ]),
      new Map(),
    );
    expect(judged.observations).toBe(1);
    expect(judged.offences).toEqual([]);
  });
});
