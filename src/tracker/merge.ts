import { isTerminal, type TaskSnapshot } from '../mcp';
import { estimateClockOffset } from './ttl';

/**
 * What we know after one more answer: the new snapshot, except that an unusable status keeps the old one, a
 * terminal status never changes, and fields the answer lacked (createdAt, ttl) keep their last good value.
 */
export function mergeSnapshot(previous: TaskSnapshot | undefined, value: TaskSnapshot): TaskSnapshot {
  let status = value.status ?? previous?.status ?? null;
  if (previous && isTerminal(previous.status) && status !== previous.status) status = previous.status;
  return {
    ...value,
    status,
    createdAt: value.createdAt ?? previous?.createdAt,
    createdAtMs: value.createdAtMs ?? previous?.createdAtMs,
    ttl: value.ttl === undefined ? previous?.ttl : value.ttl,
  };
}

/** Tasks whose clock samples are kept per receiver; the most recently heard from stay. */
const TASKS_KEPT = 50;
/** A task whose timestamps disagree with the others' by more than this is left out of the estimate. */
export const CLOCK_OUTLIER_MS = 60_000;

export interface ClockNote {
  /** The receiver's new offset estimate, when this answer changed it. */
  offset?: number;
  /** Set when this task's timestamps disagree with the receiver's other tasks: how far off it is. */
  outlierMs?: number;
}

/**
 * Estimates (server clock − local clock) for one receiver, robustly. Per task, each fresh lastUpdatedAt gives
 * a lower bound of the offset (the freshest is the best, see estimateClockOffset); across tasks the estimate is
 * the median, so one task with a timestamp a day in the future cannot expire every other task. With two tasks
 * the median falls between them: the one nearer our own clock is taken.
 */
export class ClockOffsetEstimator {
  private readonly perTask = new Map<string, number>();
  private estimate = 0;

  note(
    taskId: string,
    value: TaskSnapshot,
    previous: TaskSnapshot | undefined,
    receivedAt: number,
  ): ClockNote {
    // Only a timestamp that just changed says anything about the server's "now".
    if (value.lastUpdatedAtMs === undefined || value.lastUpdatedAtMs === previous?.lastUpdatedAtMs) return {};
    const sample = value.lastUpdatedAtMs - receivedAt;
    const before = this.perTask.get(taskId);
    this.perTask.delete(taskId);
    this.perTask.set(taskId, estimateClockOffset(before === undefined ? [sample] : [before, sample]));
    if (this.perTask.size > TASKS_KEPT) this.perTask.delete(this.perTask.keys().next().value as string);
    const sorted = [...this.perTask.values()].sort((a, b) => a - b);
    const mid = (sorted.length - 1) / 2;
    const low = sorted[Math.floor(mid)] ?? 0;
    const high = sorted[Math.ceil(mid)] ?? 0;
    const next = Math.abs(low) <= Math.abs(high) ? low : high;
    const mine = this.perTask.get(taskId) ?? sample;
    const note: ClockNote = {};
    if (sorted.length > 1 && Math.abs(mine - next) > CLOCK_OUTLIER_MS) note.outlierMs = mine - next;
    if (next !== this.estimate) note.offset = this.estimate = next;
    return note;
  }

  get count(): number {
    return this.perTask.size;
  }
}

/** After this many purge probes with the task still there, stop asking. */
export const MAX_PURGE_PROBES = 6;

/**
 * When to ask whether a terminal task was purged: once its ttl has run out (in local time), then backing off
 * from its pollInterval, doubling, up to 30 s.
 */
export function nextProbe(input: {
  expiresAtLocal: number;
  now: number;
  probes: number;
  lastGapMs: number;
  pollInterval?: number;
}): {
  delayMs: number;
  gapMs: number;
} {
  const base = input.pollInterval ?? 1000;
  const gapMs = input.probes === 0 ? base : Math.min(30_000, Math.max(base, input.lastGapMs * 2));
  return { delayMs: Math.max(0, input.expiresAtLocal - input.now) + gapMs, gapMs };
}
