import type { TaskStatus } from '../mcp';
import type { TimelineEntry, TrackedTask } from './store';

export type SegmentStatus = TaskStatus | 'purged';

export interface Segment {
  status: SegmentStatus;
  start: number;
  end: number;
}

export type MarkKind =
  'poll' | 'probe' | 'notification' | 'create' | 'list' | 'cancel' | 'result' | 'error' | 'warning' | 'input';

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
    return entry.kind === 'result' ? 'tasks/result' : 'purge';
  });
}

/**
 * The status bar and its marks from a task's entries: one segment per run of the same status, drawn from the
 * moment it was first observed to the next change (or now, while the task is live).
 */
export function buildTimeline(task: TrackedTask, now: number): TimelineModel {
  const segments: Segment[] = [];
  const marks: Mark[] = [];
  const first = task.entries[0];
  const start = Math.min(
    task.firstSeenAt,
    first ? ('sentAt' in first && first.sentAt ? first.sentAt : first.at) : task.firstSeenAt,
  );
  const close = (at: number) => {
    const last = segments.at(-1);
    if (last) last.end = at;
  };
  const open = (status: SegmentStatus, at: number) => {
    const last = segments.at(-1);
    if (last?.status === status) return;
    close(at);
    segments.push({ status, start: at, end: at });
  };
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
        const last = segments.at(-1);
        // Statuses never leave a terminal one; an illegal move is a warning, not a new segment.
        if (entry.status && !(last && ['completed', 'failed', 'cancelled'].includes(last.status)))
          open(entry.status, entry.at);
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
        open('purged', entry.at);
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

  const lastEntry = task.entries.at(-1);
  const end = task.lifecycle === 'live' ? now : Math.max(lastEntry?.at ?? start, start);
  close(end);
  return { start, end: Math.max(end, start + 1), segments, marks };
}
