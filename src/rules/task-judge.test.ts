import { describe, expect, it } from 'vitest';
import { newTrackedTask, type ObservationEntry, type TrackedTask } from '../tracker/task-store';
import { judgeTask } from './task-judge';

const CREATED = '2026-12-01T10:00:00.000Z';
const T0 = Date.parse(CREATED);

const poll = (at: number, status: ObservationEntry['status'], extra: Partial<ObservationEntry> = {}) =>
  ({
    kind: 'observation',
    at: T0 + at,
    sentAt: T0 + at - 5,
    source: 'poll',
    status,
    createdAt: CREATED,
    lastUpdatedAt: CREATED,
    ttl: 8000,
    pollInterval: 500,
    warnings: [],
    ...extra,
  }) satisfies ObservationEntry;

function task(fields: Partial<TrackedTask>): TrackedTask {
  return {
    ...newTrackedTask({ taskId: 't', connectionId: 1, origin: 'created', firstSeenAt: T0 }),
    ...fields,
  };
}

const judge = (t: TrackedTask) =>
  judgeTask({ task: t, era: '2025-11-25', clockOffsetMs: 0, clockSamples: 1 });

describe('the rules one task breaks', () => {
  it('a task purged 3 s into an 8 s ttl, while it worked: the MUST, where it happened, with its rule', () => {
    const purged = task({
      status: 'working',
      lifecycle: 'purged',
      entries: [
        poll(0, 'working', { source: 'create', sentAt: undefined }),
        poll(1000, 'working'),
        { kind: 'purged', at: T0 + 3000, error: { kind: 'purged', message: 'gone' } },
      ],
    });
    const breaks = judge(purged);
    expect(breaks).toHaveLength(1);
    expect(breaks[0]).toMatchObject({
      id: 'ttl-not-purged-early',
      strength: 'MUST',
      at: T0 + 3000,
      detail: 'purged 5 s before its ttl ran out',
    });
    expect(breaks[0]?.spec).toMatch(/^https:\/\/modelcontextprotocol\.io\/specification\/2025-11-25\//);
  });

  it('a terminal status that changed and a createdAt that moved, each once; a well-behaved task, none', () => {
    const broken = task({
      status: 'completed',
      lifecycle: 'terminal',
      entries: [poll(0, 'completed'), poll(600, 'working', { createdAt: '2026-12-01T10:00:01.000Z' })],
    });
    expect(judge(broken).map((b) => b.id)).toEqual(['status-transitions', 'created-at-fixed']);
    const fine = task({
      status: 'completed',
      lifecycle: 'terminal',
      entries: [poll(0, 'working'), poll(600, 'completed')],
    });
    expect(judge(fine)).toEqual([]);
  });

  it('a MAY is no fault of a task: on 2026-07-28 an early discard is allowed, so nothing is said', () => {
    const purged = task({
      status: 'working',
      lifecycle: 'purged',
      entries: [
        poll(0, 'working'),
        { kind: 'purged', at: T0 + 3000, error: { kind: 'purged', message: 'gone' } },
      ],
    });
    expect(judgeTask({ task: purged, era: '2026-07-28', clockOffsetMs: 0, clockSamples: 1 })).toEqual([]);
  });
});
