import { describe, expect, it } from 'vitest';
import { buildTimeline, describeSources, pollSteps } from './timeline-model';
import { describeRowTime, endedAt, rowTime } from './row-time';
import { newTrackedTask, type TrackedTask } from './task-store';
import { observation } from '../../test/helpers/task-records';

const obs = observation;

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
    expect(model.marks.map((m) => m.kind)).toEqual(['poll', 'result', 'purge']);
    expect(model.marks.at(-1)).toMatchObject({ at: 9000, detail: expect.stringContaining('gone') });
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

describe('the pollInterval step line', () => {
  it('steps where the receiver changed its hint and runs the last step to the end', () => {
    const model = buildTimeline(
      task([
        obs(0, 'working', { source: 'create', pollInterval: 250 }),
        obs(250, 'working', { pollInterval: 250 }),
        obs(500, 'working', { pollInterval: 2000 }),
        obs(2500, 'working'),
        obs(4500, 'working', { pollInterval: 2000 }),
      ]),
      5000,
    );
    expect(model.pollSteps).toEqual([
      { interval: 250, start: 0, end: 500 },
      { interval: 2000, start: 500, end: 5000 },
    ]);
  });

  it('is empty when no answer gave a pollInterval', () => {
    expect(pollSteps([obs(0, 'working'), obs(1000, 'completed')], 1000)).toEqual([]);
  });
});

describe('the time before the first observation', () => {
  const listedLate = () =>
    task([obs(1200, 'completed', { source: 'list', sentAt: 1150 }), obs(1264, 'completed')], {
      origin: 'list',
      firstSeenAt: 1200,
      lifecycle: 'terminal',
    });

  it('is drawn from createdAt to the first observation when the task existed before it was asked about', () => {
    const model = buildTimeline(listedLate(), 99_000, { createdAt: 0 });
    expect(model.unobserved).toEqual({ start: 0, end: 1200, drawnStart: 0 });
    // Seen once, with no observed span at all, it is still drawn whole.
    expect(
      buildTimeline(
        task([obs(1200, 'completed', { source: 'list' })], { origin: 'list', lifecycle: 'terminal' }),
        0,
        { createdAt: 0 },
      ).unobserved?.drawnStart,
    ).toBe(0);
    expect(model.view.start).toBe(0);
    // The observed span is unchanged: the status bar still starts at the first request.
    expect(model.start).toBe(1150);
    expect(model.segments).toEqual([{ status: 'completed', start: 1200, end: 1264 }]);
  });

  it('is not drawn for a task created here, even when a push announced it before the create answer', () => {
    const model = buildTimeline(
      task([
        obs(60, 'working', { source: 'notification', sentAt: undefined }),
        obs(100, 'working', { source: 'create', sentAt: 0 }),
      ]),
      1000,
      { createdAt: 40 },
    );
    expect(model.unobserved).toBeUndefined();
    expect(model.view.start).toBe(0);
  });

  it('is measured against the first request about the task, not the first answer', () => {
    const followed = task(
      [
        obs(300, 'working', { source: 'notification', sentAt: undefined }),
        obs(400, 'working', { source: 'poll', sentAt: 100 }),
      ],
      { origin: 'manual', firstSeenAt: 100 },
    );
    expect(buildTimeline(followed, 1000, { createdAt: 150 }).unobserved).toBeUndefined();
    expect(buildTimeline(followed, 1000, { createdAt: 50 }).unobserved).toEqual({
      start: 50,
      end: 300,
      drawnStart: 50,
    });
  });

  it('is not drawn when createdAt is unknown', () =>
    expect(buildTimeline(listedLate(), 99_000).unobserved).toBeUndefined());

  it('is shortened when it dwarfs the observed life, so the observed part keeps a readable share', () => {
    const model = buildTimeline(listedLate(), 99_000, { createdAt: -3_600_000 });
    // Observed for 64 ms, which counts as 1 s here: 20 s of the two hours are drawn.
    expect(model.unobserved).toEqual({ start: -3_600_000, end: 1200, drawnStart: 1200 - 20_000 });
    expect(model.view.start).toBe(-18_800);
  });
});

describe('the TTL deadline mark', () => {
  const live = () =>
    task([obs(0, 'working', { source: 'create', sentAt: undefined }), obs(1000, 'working')], {
      lifecycle: 'live',
    });

  it('is marked, and the range widened to it, when the deadline falls near the drawn range', () => {
    const model = buildTimeline(live(), 2000, { createdAt: 0, ttlDeadline: 2800 });
    expect(model.marks.filter((m) => m.kind === 'ttl').map((m) => m.at)).toEqual([2800]);
    expect(model.view).toEqual({ start: 0, end: 2800 });
    expect(model.end).toBe(2000);
  });

  it('is marked inside the range without widening it', () => {
    const model = buildTimeline(
      task([obs(0, 'completed', { source: 'create', sentAt: undefined }), obs(5000, 'completed')], {
        lifecycle: 'purged',
      }),
      9000,
      { ttlDeadline: 3000 },
    );
    expect(model.marks.find((m) => m.kind === 'ttl')?.at).toBe(3000);
    expect(model.view).toEqual({ start: 0, end: 5000 });
  });

  it('far beyond the range (a 2 s task with a 60 s ttl): marked at the right edge, the axis kept', () => {
    const model = buildTimeline(live(), 2000, { createdAt: 0, ttlDeadline: 60_000 });
    const mark = model.marks.find((m) => m.kind === 'ttl');
    expect(mark?.at).toBe(2000);
    expect(mark?.detail).toMatch(/58 s past the right edge/);
    expect(model.view).toEqual({ start: 0, end: 2000 });
    expect(model.deadlineBeyond).toBe(60_000);
  });

  it('drawn where it lay, however far, when that is the point (a task purged 5 s before it)', () => {
    const purged = task(
      [
        obs(0, 'working', { source: 'create', sentAt: undefined }),
        obs(1000, 'working'),
        { kind: 'purged', at: 3000, error: { kind: 'purged', message: 'gone' } },
      ],
      { lifecycle: 'purged' },
    );
    const model = buildTimeline(purged, 0, { createdAt: 0, ttlDeadline: 8000, deadlineReach: Infinity });
    expect(model.marks.find((m) => m.kind === 'ttl')?.at).toBe(8000);
    expect(model.view).toEqual({ start: 0, end: 8000 });
    expect(model.marks.find((m) => m.kind === 'purge')?.at).toBe(3000);
  });
});

describe('rowTime', () => {
  const base = { firstSeenAt: 1000 };

  it('gives an ended task its duration, from the receiver’s own stamps when they agree with what was seen', () => {
    expect(
      rowTime(
        { ...base, status: 'completed', lifecycle: 'terminal' },
        { createdAt: 1000, serverCreatedAtMs: 50_000, serverLastUpdatedAtMs: 54_800, endedAt: 5900 },
      ),
    ).toEqual({ kind: 'took', ms: 4800, basis: 'server' });
    // Stamps that claim a longer life than was watched are not believed.
    expect(
      rowTime(
        { ...base, status: 'failed', lifecycle: 'terminal' },
        { createdAt: 1000, serverCreatedAtMs: 0, serverLastUpdatedAtMs: 99_000, endedAt: 5900 },
      ),
    ).toEqual({ kind: 'took', ms: 4900, basis: 'created' });
  });

  it('stops counting once ended: the same answer at any later time', () => {
    const ended = rowTime({ ...base, status: 'failed', lifecycle: 'terminal' }, { endedAt: 5800 });
    expect(ended).toEqual({ kind: 'took', ms: 4800, basis: 'first-seen' });
    expect(describeRowTime(ended, 10_000)).toBe('took 4.8 s');
    expect(describeRowTime(ended, 60_000)).toBe('took 4.8 s');
  });

  it('gives a live task its age, labelled, from createdAt when known', () => {
    const age = rowTime({ ...base, status: 'working', lifecycle: 'live' }, { createdAt: 400 });
    expect(age).toEqual({ kind: 'age', since: 400, basis: 'created' });
    expect(describeRowTime(age, 12_400)).toBe('age 12 s');
  });

  it('does not invent a duration for a task that had ended before it was first seen', () => {
    const entries = [obs(1000, 'completed', { source: 'list' })];
    expect(
      rowTime(
        { ...base, status: 'completed', lifecycle: 'terminal', entries },
        { endedAt: endedAt(entries) },
      ),
    ).toEqual({ kind: 'ended-unseen', at: 1000 });
  });

  it('finds when the task was first seen ended', () =>
    expect(endedAt([obs(0, 'working'), obs(900, 'failed'), obs(1500, 'failed')])).toBe(900));
});

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
