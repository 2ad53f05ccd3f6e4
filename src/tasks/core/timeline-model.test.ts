import { describe, expect, it } from 'vitest';
import { buildTimeline, describeSources } from './timeline-model';
import { newTrackedTask, type ObservationEntry, type TrackedTask } from './store';

const obs = (
  at: number,
  status: ObservationEntry['status'],
  over: Partial<ObservationEntry> = {},
): ObservationEntry => ({
  kind: 'observation',
  at,
  source: 'poll',
  sentAt: at - 10,
  latencyMs: 10,
  status,
  warnings: [],
  ...over,
});

const task = (entries: TrackedTask['entries'], over: Partial<TrackedTask> = {}): TrackedTask =>
  newTrackedTask({
    taskId: 't',
    connectionId: 1,
    origin: 'created',
    firstSeenAt: 0,
    entries,
    pollCount: entries.filter((e) => e.kind === 'observation' && e.source === 'poll').length,
    ...over,
  });

describe('buildTimeline', () => {
  it('draws one segment per status run, the live one up to now', () => {
    const model = buildTimeline(
      task([
        obs(0, 'working', { source: 'create', sentAt: undefined }),
        obs(1000, 'working'),
        obs(2000, 'input_required'),
        obs(3000, 'working'),
      ]),
      5000,
    );
    expect(model.segments).toEqual([
      { status: 'working', start: 0, end: 2000 },
      { status: 'input_required', start: 2000, end: 3000 },
      { status: 'working', start: 3000, end: 5000 },
    ]);
    expect(model.marks.filter((m) => m.kind === 'poll')).toHaveLength(3);
    expect(model.marks.find((m) => m.kind === 'create')).toBeDefined();
  });

  it('ends at the last entry once terminal, and ignores illegal moves after it', () => {
    const model = buildTimeline(
      task(
        [
          obs(0, 'working', { source: 'create' }),
          obs(1000, 'completed'),
          obs(1500, 'working', { source: 'notification' }),
        ],
        { lifecycle: 'terminal' },
      ),
      99_000,
    );
    expect(model.segments.map((s) => s.status)).toEqual(['working', 'completed']);
    expect(model.end).toBe(1500);
  });

  it('keeps unusable statuses out of the bar but marks their warnings', () => {
    const model = buildTimeline(
      task([
        obs(0, 'working'),
        obs(1000, null, {
          warnings: [{ code: 'unknown-status', message: "unknown status 'bogus', ignored" }],
        }),
      ]),
      2000,
    );
    expect(model.segments).toHaveLength(1);
    expect(model.marks.find((m) => m.kind === 'warning')?.detail).toBe(
      "2nd poll: unknown status 'bogus', ignored",
    );
  });

  it('adds a purged segment and marks results and errors', () => {
    const model = buildTimeline(
      task(
        [
          obs(0, 'completed'),
          { kind: 'result', at: 50, sentAt: 10, latencyMs: 40, outcome: 'fetched', warnings: [] },
          { kind: 'purged', at: 9000, error: { kind: 'purged', message: 'gone' } },
        ],
        { lifecycle: 'purged' },
      ),
      20_000,
    );
    expect(model.segments.map((s) => s.status)).toEqual(['completed', 'purged']);
    expect(model.marks.map((m) => m.kind)).toEqual(['poll', 'result']);
  });
});

describe('describeSources', () => {
  it('numbers polls and names the rest', () => {
    expect(
      describeSources([
        obs(0, 'working', { source: 'create' }),
        obs(1, 'working'),
        obs(2, 'working', { source: 'notification' }),
        obs(3, 'working'),
        obs(4, 'working'),
      ]),
    ).toEqual(['create', '1st poll', 'push', '2nd poll', '3rd poll']);
  });
});
