import type { TimelineEntry, TrackedTask } from './task-store';
import { formatMs } from '../format/time';

/**
 * What a task row says about time: how long an ended task took, or how old a live one is. A row that kept
 * counting after the task ended read as a task still running.
 */
export type RowTime =
  | { kind: 'took'; ms: number; basis: 'server' | 'created' | 'first-seen' }
  /** It had ended before anyone saw it and its createdAt is unknown: how long it took cannot be told. */
  | { kind: 'ended-unseen'; at: number }
  | { kind: 'age'; since: number; basis: 'created' | 'first-seen' }
  /** Not live and not ended (its session ended, it was purged mid-run): how long it was watched. */
  | { kind: 'seen'; ms: number };

export function rowTime(
  task: Pick<TrackedTask, 'status' | 'lifecycle' | 'firstSeenAt'> & { entries?: readonly TimelineEntry[] },
  times: {
    /** createdAt on the local clock (corrected). */
    createdAt?: number;
    /** The receiver's own createdAt and lastUpdatedAt (its clock): their difference needs no correction. */
    serverCreatedAtMs?: number;
    serverLastUpdatedAtMs?: number;
    /** When the page first learnt the task had ended (local). */
    endedAt?: number;
    /** The newest entry's time (local), for tasks neither live nor ended. */
    lastSeenAt?: number;
  },
): RowTime {
  const created =
    times.createdAt !== undefined && Number.isFinite(times.createdAt) ? times.createdAt : undefined;
  const ended = task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled';
  if (ended) {
    const endedAt = times.endedAt ?? times.lastSeenAt ?? task.firstSeenAt;
    if (created !== undefined) {
      const local = Math.max(0, endedAt - created);
      const { serverCreatedAtMs: c, serverLastUpdatedAtMs: u } = times;
      // The receiver's own two stamps time the task exactly, unless they contradict what was observed.
      if (c !== undefined && u !== undefined && u >= c && u - c <= local + 1000)
        return { kind: 'took', ms: u - c, basis: 'server' };
      return { kind: 'took', ms: local, basis: 'created' };
    }
    const firstStatus = task.entries?.find((e) => e.kind === 'observation' && e.status !== null);
    if (firstStatus?.kind === 'observation' && firstStatus.status === task.status)
      return { kind: 'ended-unseen', at: endedAt };
    return { kind: 'took', ms: Math.max(0, endedAt - task.firstSeenAt), basis: 'first-seen' };
  }
  if (task.lifecycle === 'live')
    return created !== undefined
      ? { kind: 'age', since: Math.min(created, task.firstSeenAt), basis: 'created' }
      : { kind: 'age', since: task.firstSeenAt, basis: 'first-seen' };
  return { kind: 'seen', ms: Math.max(0, (times.lastSeenAt ?? task.firstSeenAt) - task.firstSeenAt) };
}

/** When the page first saw the task in a terminal status (local), from its entries. */
export function endedAt(entries: readonly TimelineEntry[]): number | undefined {
  for (const entry of entries)
    if (
      entry.kind === 'observation' &&
      (entry.status === 'completed' || entry.status === 'failed' || entry.status === 'cancelled')
    )
      return entry.at;
  return undefined;
}

/** "took 4.8 s", "age 12 s": the row's label, so a number never stands alone. */
export function describeRowTime(time: RowTime, now: number): string {
  switch (time.kind) {
    case 'took':
      return `took ${formatMs(time.ms)}`;
    case 'ended-unseen':
      return 'ended unseen';
    case 'age':
      return `age ${formatMs(Math.max(0, now - time.since))}`;
    case 'seen':
      return `seen ${formatMs(time.ms)}`;
  }
}
