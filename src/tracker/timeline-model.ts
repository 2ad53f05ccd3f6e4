import type { TaskStatus } from '../mcp';
import type { TimelineEntry, TrackedTask } from './task-store';
import { formatClock, formatMs } from '../format/time';

export type SegmentStatus = TaskStatus | 'purged';

export interface Segment {
  status: SegmentStatus;
  start: number;
  end: number;
}

export type MarkKind =
  | 'poll'
  | 'probe'
  | 'check'
  | 'notification'
  | 'create'
  | 'list'
  | 'cancel'
  | 'result'
  | 'error'
  | 'warning'
  | 'input'
  | 'session'
  | 'progress'
  | 'log'
  | 'purge'
  | 'ttl';

export interface Mark {
  kind: MarkKind;
  at: number;
  /** What the hover shows. */
  detail: string;
}

/** The receiver's pollInterval from one observation until the next that gave another. */
export interface PollStep {
  start: number;
  end: number;
  interval: number;
}

/** The task existed (its createdAt) before anyone observed it: drawn hatched, never as a status. */
export interface Unobserved {
  start: number;
  end: number;
  /**
   * Where the drawing starts: `start`, or later when the unobserved time dwarfs the observed one (a task
   * listed hours after it was created), so the observed part keeps a readable share of the bar.
   */
  drawnStart: number;
}

export interface TimelineModel {
  /** The observed span: the first request about the task to its end (or now, while live). */
  start: number;
  end: number;
  segments: Segment[];
  marks: Mark[];
  pollSteps: PollStep[];
  unobserved?: Unobserved;
  /** The drawn range: the observed span widened for the unobserved time and a TTL deadline near it. */
  view: { start: number; end: number };
  /** The TTL deadline when it lies too far past the drawn range to draw to scale (its mark sits at the edge). */
  deadlineBeyond?: number;
}

/** What the timeline knows about the task beyond its entries, both on the local clock. */
export interface TimelineContext {
  /** The receiver's createdAt, corrected by the clock offset. */
  createdAt?: number;
  /** createdAt + ttl, corrected likewise; absent when the task never expires or it is unknown. */
  ttlDeadline?: number;
  /** How a result entry is named (RESULT_NAME): 2026-07-28 has no tasks/result. */
  resultName?: string;
  /**
   * How far outside the observed span the deadline is drawn in place, as a share of the span (DEADLINE_NEAR
   * by default; Infinity when where it lay is the point, as for a task purged before it).
   */
  deadlineReach?: number;
}

/**
 * How far outside the observed span a TTL deadline is still drawn, as a share of the span: near enough
 * to read against the task's life, without squeezing a 2 s task into a sliver beside a 60 s ttl.
 */
export const DEADLINE_NEAR = 0.5;

/**
 * The longest unobserved time drawn to scale, as a multiple of the observed span: a 1.2 s life seen for
 * its last 64 ms is drawn whole (the point of drawing it), a task listed two hours late is not.
 */
export const UNOBSERVED_MAX_RATIO = 20;
export const UNOBSERVED_SCALE_FLOOR_MS = 1000;

/** How a result entry is named, per protocol generation. */
export const RESULT_NAME = {
  '2025-11-25': 'tasks/result',
  '2026-07-28': 'result in tasks/get',
} as const;

/** What a 2026-07-28 cancel acknowledgement says: an answer without a status, which is not a fault. */
export const CANCEL_ACKNOWLEDGED =
  'tasks/cancel acknowledged: the receiver may still go on, and a push or the next poll shows what it does';

/** A cancel answered without a task and without a fault: the 2026-07-28 acknowledgement. */
export const isCancelAcknowledgement = (entry: TimelineEntry): boolean =>
  entry.kind === 'observation' &&
  entry.source === 'cancel' &&
  entry.status === null &&
  entry.warnings.length === 0;

const ordinal = (n: number) => {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return `${n}${s[(v - 20) % 10] ?? s[v] ?? s[0]}`;
};

/** "3rd poll", "push", "tasks/list": how the observation table and warnings name where a line came from. */
export function describeSources(
  entries: readonly TimelineEntry[],
  pollsBefore = 0,
  /** 2026-07-28 has no tasks/result: a result comes inside the tasks/get that sees the task end. */
  resultName: string = RESULT_NAME['2025-11-25'],
): string[] {
  let polls = pollsBefore;
  return entries.map((entry) => {
    if (entry.kind === 'observation' || entry.kind === 'error') {
      if (entry.source === 'poll') return `${ordinal(++polls)} poll`;
      if (entry.source === 'notification') return 'push';
      if (entry.source === 'list') return 'tasks/list';
      if (entry.source === 'create') return 'create';
      if (entry.source === 'cancel') return 'cancel';
      if (entry.source === 'check') return 'check';
      return 'purge probe';
    }
    if (entry.kind === 'input') return entry.method;
    if (entry.kind === 'session') return 'session';
    if (entry.kind === 'progress') return 'progress';
    if (entry.kind === 'log') return `log ${entry.level}`;
    return entry.kind === 'result' ? resultName : 'purge';
  });
}

/** Where a task's status bar starts: the first request about it, or when it was first seen. */
export function timelineStart(task: TrackedTask): number {
  const first = task.entries[0];
  return Math.min(
    task.firstSeenAt,
    first ? ('sentAt' in first && first.sentAt ? first.sentAt : first.at) : task.firstSeenAt,
  );
}

const TERMINAL: ReadonlySet<SegmentStatus> = new Set(['completed', 'failed', 'cancelled']);

/**
 * The status segments alone, for views that draw many tasks at once (the waterfall). Statuses never leave a
 * terminal one; an illegal move is a warning elsewhere, not a new segment.
 */
export function taskSegments(
  task: TrackedTask,
  now: number,
): Pick<TimelineModel, 'start' | 'end' | 'segments'> {
  const start = timelineStart(task);
  const segments: Segment[] = [];
  const open = (status: SegmentStatus, at: number) => {
    const last = segments.at(-1);
    if (last?.status === status) return;
    if (last) last.end = at;
    segments.push({ status, start: at, end: at });
  };
  for (const entry of task.entries) {
    if (entry.kind === 'observation') {
      const last = segments.at(-1);
      if (entry.status && !(last && TERMINAL.has(last.status))) open(entry.status, entry.at);
    } else if (entry.kind === 'purged') open('purged', entry.at);
  }
  const lastEntry = task.entries.at(-1);
  const end = task.lifecycle === 'live' ? now : Math.max(lastEntry?.at ?? start, start);
  const last = segments.at(-1);
  if (last) last.end = end;
  return { start, end: Math.max(end, start + 1), segments };
}

/** The receiver's pollInterval over time, one step per change, the last running to `end`. */
export function pollSteps(entries: readonly TimelineEntry[], end: number): PollStep[] {
  const steps: PollStep[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'observation' || entry.pollInterval === undefined) continue;
    const last = steps.at(-1);
    if (last?.interval === entry.pollInterval) continue;
    if (last) last.end = entry.at;
    steps.push({ interval: entry.pollInterval, start: entry.at, end: entry.at });
  }
  const last = steps.at(-1);
  if (last) last.end = Math.max(last.start, end);
  return steps;
}

/**
 * The time between createdAt and the first observation, when the task existed before anyone here asked
 * about it. A task created here did not: its createdAt falls within the create request's flight, and a push
 * may even announce it before the create answer, so it is never drawn with unobserved time.
 */
export function unobservedSpan(
  task: Pick<TrackedTask, 'entries' | 'origin'>,
  createdAt: number | undefined,
  observedEnd: number,
): Unobserved | undefined {
  if (task.origin === 'created' || createdAt === undefined || !Number.isFinite(createdAt)) return undefined;
  const first = task.entries.find((e) => e.kind === 'observation');
  if (!first) return undefined;
  // The first request about the task, which may have been answered after a push about it.
  const asked = task.entries.reduce(
    (min, e) => Math.min(min, 'sentAt' in e && e.sentAt !== undefined ? e.sentAt : e.at),
    first.sentAt ?? first.at,
  );
  if (createdAt >= asked) return undefined;
  // A task seen once has no observed span to speak of: up to 20 s before it is still drawn to scale.
  const observed = Math.max(UNOBSERVED_SCALE_FLOOR_MS, observedEnd - first.at);
  return {
    start: createdAt,
    end: first.at,
    drawnStart: Math.max(createdAt, first.at - observed * UNOBSERVED_MAX_RATIO),
  };
}

/**
 * The status bar and its marks from a task's entries: one segment per run of the same status, drawn from the
 * moment it was first observed to the next change (or now, while the task is live).
 */
export function buildTimeline(task: TrackedTask, now: number, context: TimelineContext = {}): TimelineModel {
  const { start, end, segments } = taskSegments(task, now);
  const marks: Mark[] = [];
  const unobserved = unobservedSpan(task, context.createdAt, end);
  const view = { start: Math.min(start, unobserved?.drawnStart ?? start), end };
  const resultName: string = context.resultName ?? RESULT_NAME['2025-11-25'];
  const labels = describeSources(
    task.entries,
    task.pollCount -
      task.entries.filter((e) => (e.kind === 'observation' || e.kind === 'error') && e.source === 'poll')
        .length,
    resultName,
  );

  task.entries.forEach((entry, i) => {
    const label = labels[i] ?? '';
    switch (entry.kind) {
      case 'observation': {
        const kind: MarkKind = entry.source === 'poll' ? 'poll' : entry.source;
        const parts = [label];
        if (entry.sentAt !== undefined && entry.latencyMs !== undefined)
          parts.push(
            `sent ${formatClock(entry.sentAt, { millis: true })}`,
            `latency ${Math.round(entry.latencyMs)} ms`,
          );
        else parts.push(`at ${formatClock(entry.at, { millis: true })}`);
        if (entry.intervalMs !== undefined) parts.push(`interval in force ${entry.intervalMs} ms`);
        if (entry.pollInterval !== undefined) parts.push(`pollInterval ${entry.pollInterval} ms`);
        if (isCancelAcknowledgement(entry)) parts.push(CANCEL_ACKNOWLEDGED);
        else
          parts.push(
            `answer: ${entry.status ?? 'unusable status'}${entry.statusMessage ? ` — ${entry.statusMessage}` : ''}`,
          );
        marks.push({ kind, at: entry.sentAt ?? entry.at, detail: parts.join(' · ') });
        if (entry.warnings.length > 0) {
          marks.push({
            kind: 'warning',
            at: entry.at,
            detail: entry.warnings.map((w) => `${label}: ${w.message}`).join('\n'),
          });
        }
        break;
      }
      case 'error':
        marks.push({
          kind: 'error',
          at: entry.sentAt,
          detail: `${label} ${formatClock(entry.sentAt, { millis: true })}: ${entry.error.message}`,
        });
        break;
      case 'result':
        marks.push({
          kind: 'result',
          at: entry.at,
          detail: `${resultName} ${formatClock(entry.at, { millis: true })}: ${entry.outcome}${entry.error ? ` — ${entry.error.message}` : ''} (${Math.round(entry.latencyMs)} ms)`,
        });
        break;
      case 'purged':
        marks.push({
          kind: 'purge',
          at: entry.at,
          detail: `purged ${formatClock(entry.at, { millis: true })}: ${entry.error.message}`,
        });
        break;
      case 'session':
        marks.push({
          kind: 'session',
          at: entry.at,
          detail: `${formatClock(entry.at, { millis: true })}: ${entry.detail}`,
        });
        break;
      case 'progress':
        marks.push({
          kind: 'progress',
          at: entry.at,
          detail: `progress ${formatClock(entry.at, { millis: true })}: ${entry.progress}${entry.total !== undefined ? `/${entry.total}` : ''}${entry.message ? ` — ${entry.message}` : ''}`,
        });
        break;
      case 'log':
        marks.push({
          kind: 'log',
          at: entry.at,
          detail: `log ${formatClock(entry.at, { millis: true })} ${entry.level}${entry.logger ? ` (${entry.logger})` : ''}: ${entry.text}`,
        });
        break;
      case 'input':
        marks.push({
          kind: 'input',
          at: entry.at,
          detail: `${entry.method} ${formatClock(entry.at, { millis: true })}: ${entry.phase}${entry.detail ? ` (${entry.detail})` : ''}`,
        });
        break;
    }
  });
  const deadline = context.ttlDeadline;
  if (deadline !== undefined && Number.isFinite(deadline)) {
    const reach = (view.end - view.start) * (context.deadlineReach ?? DEADLINE_NEAR);
    // Inside the unobserved time drawn shortened, a position would lie; the countdown still says it.
    const hidden = unobserved && unobserved.drawnStart > unobserved.start && deadline < unobserved.end;
    if (!hidden && deadline >= view.start - reach && deadline <= view.end + reach) {
      view.start = Math.min(view.start, deadline);
      view.end = Math.max(view.end, deadline);
      marks.push({
        kind: 'ttl',
        at: deadline,
        detail: `TTL deadline ${formatClock(deadline, { millis: true })}: createdAt + ttl, on the receiver's clock corrected to this one`,
      });
    } else if (!hidden && deadline > view.end + reach) {
      // Far beyond the task's drawn life: widening the axis would squash the task to a sliver, so the mark
      // sits at the right edge and says where the deadline really is.
      marks.push({
        kind: 'ttl',
        at: view.end,
        detail: `TTL deadline ${formatClock(deadline, { millis: true })} →: ${formatMs(deadline - view.end)} past the right edge (createdAt + ttl)`,
      });
    }
  }
  const beyond = marks.some((m) => m.kind === 'ttl' && m.at !== deadline) ? deadline : undefined;
  return {
    start,
    end,
    segments,
    marks,
    pollSteps: pollSteps(task.entries, end),
    unobserved,
    view,
    ...(beyond !== undefined && { deadlineBeyond: beyond }),
  };
}
