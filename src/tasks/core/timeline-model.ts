import type { TaskStatus } from '../../mcp';
import type { TimelineEntry, TrackedTask } from './store';

export type SegmentStatus = TaskStatus | 'purged';

export interface Segment {
  status: SegmentStatus;
  start: number;
  end: number;
}

export type MarkKind =
  | 'poll'
  | 'probe'
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
  | 'log';

export interface Mark {
  kind: MarkKind;
  at: number;
  /** What the hover shows. */
  detail: string;
}

export interface TimelineModel {
  start: number;
  end: number;
  segments: Segment[];
  marks: Mark[];
}

const ordinal = (n: number) => {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return `${n}${s[(v - 20) % 10] ?? s[v] ?? s[0]}`;
};

/** "3rd poll", "push", "tasks/list": how the observation table and warnings name where a line came from. */
export function describeSources(entries: readonly TimelineEntry[], pollsBefore = 0): string[] {
  let polls = pollsBefore;
  return entries.map((entry) => {
    if (entry.kind === 'observation' || entry.kind === 'error') {
      if (entry.source === 'poll') return `${ordinal(++polls)} poll`;
      if (entry.source === 'notification') return 'push';
      if (entry.source === 'list') return 'tasks/list';
      if (entry.source === 'create') return 'create';
      if (entry.source === 'cancel') return 'cancel';
      return 'purge probe';
    }
    if (entry.kind === 'input') return entry.method;
    if (entry.kind === 'session') return 'session';
    if (entry.kind === 'progress') return 'progress';
    if (entry.kind === 'log') return 'log';
    return entry.kind === 'result' ? 'tasks/result' : 'purge';
  });
}

/**
 * The status bar and its marks from a task's entries: one segment per run of the same status, drawn from the
 * moment it was first observed to the next change (or now, while the task is live).
 */
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

export function buildTimeline(task: TrackedTask, now: number): TimelineModel {
  const { start, end, segments } = taskSegments(task, now);
  const marks: Mark[] = [];
  const labels = describeSources(
    task.entries,
    task.pollCount -
      task.entries.filter((e) => (e.kind === 'observation' || e.kind === 'error') && e.source === 'poll')
        .length,
  );

  task.entries.forEach((entry, i) => {
    const label = labels[i] ?? '';
    switch (entry.kind) {
      case 'observation': {
        const kind: MarkKind = entry.source === 'poll' ? 'poll' : entry.source;
        const parts = [label];
        if (entry.sentAt !== undefined && entry.latencyMs !== undefined)
          parts.push(
            `sent ${new Date(entry.sentAt).toLocaleTimeString()}`,
            `latency ${Math.round(entry.latencyMs)} ms`,
          );
        if (entry.intervalMs !== undefined) parts.push(`interval in force ${entry.intervalMs} ms`);
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
        marks.push({ kind: 'error', at: entry.sentAt, detail: `${label}: ${entry.error.message}` });
        break;
      case 'result':
        marks.push({
          kind: 'result',
          at: entry.at,
          detail: `tasks/result: ${entry.outcome}${entry.error ? ` — ${entry.error.message}` : ''} (${Math.round(entry.latencyMs)} ms)`,
        });
        break;
      case 'purged':
        break;
      case 'session':
        marks.push({ kind: 'session', at: entry.at, detail: entry.detail });
        break;
      case 'progress':
        marks.push({
          kind: 'progress',
          at: entry.at,
          detail: `progress ${entry.progress}${entry.total !== undefined ? `/${entry.total}` : ''}${entry.message ? ` — ${entry.message}` : ''}`,
        });
        break;
      case 'log':
        marks.push({ kind: 'log', at: entry.at, detail: `${entry.level}: ${entry.text}` });
        break;
      case 'input':
        marks.push({
          kind: 'input',
          at: entry.at,
          detail: `${entry.method}: ${entry.phase}${entry.detail ? ` (${entry.detail})` : ''}`,
        });
        break;
    }
  });
  return { start, end, segments, marks };
}
