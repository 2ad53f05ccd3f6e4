import { capMap, type TaskSnapshot, type Warning } from '../mcp';
import { formatMs } from '../format/time';
import type { ObservationSource, TasksStore } from './task-store';

/**
 * The receiver's clock, as its answers show it: the offset (server clock − local clock) is estimated from the
 * timestamps it writes, and corrects every TTL deadline the page draws (ttl.ts takes it as `offsetMs`).
 */

/** Offsets smaller than this are noise (latency, rounding) and not worth showing. */
export const NOTABLE_CLOCK_OFFSET_MS = 1000;

/**
 * Estimates (server clock − local clock) from timestamps the server wrote and the local time we received them.
 * A server timestamp is never later than the moment its answer left, so each sample is a lower bound of the
 * offset, short by that answer's age; the largest sample is the freshest, so it is the estimate.
 */
export function estimateClockOffset(samples: readonly number[]): number {
  return samples.length === 0 ? 0 : Math.max(...samples);
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
    capMap(this.perTask, TASKS_KEPT);
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

/**
 * The receiver's clock as its answers show it, for the whole connection: the estimate and the tasks already
 * warned about outlive any one answer, so they are kept here rather than in the tracker's per-answer merge.
 */
export class ClockCheck {
  private readonly offset = new ClockOffsetEstimator();
  /** Tasks already warned about for timestamps far from the others'. */
  private readonly outliers = new Set<string>();

  constructor(private readonly store: TasksStore) {}

  /**
   * Feeds the receiver's clock estimate and flags timestamps that cannot be right. Only a lastUpdatedAt we
   * saw change (or a create answer, written just now) says what the receiver's clock reads; a listed task's
   * may be hours old. A timestamp further ahead of its arrival than the offset allows is flagged, once.
   */
  check(
    taskId: string,
    value: TaskSnapshot,
    previous: TaskSnapshot | undefined,
    at: number,
    source: ObservationSource,
    warnings: Warning[],
  ): void {
    const fresh = previous !== undefined || source === 'create';
    const clock = fresh ? this.offset.note(taskId, value, previous, at) : {};
    // A sample that leaves the estimate where it was still counts: the report card judges only a known clock.
    const samples = this.offset.count;
    if (clock.offset !== undefined || samples !== this.store.getState().clockSamples)
      this.store.setState({
        clockOffsetMs: clock.offset ?? this.store.getState().clockOffsetMs,
        clockSamples: samples,
      });
    const ahead = (value.lastUpdatedAtMs ?? -Infinity) - at - this.store.getState().clockOffsetMs;
    const off = clock.outlierMs ?? (ahead > CLOCK_OUTLIER_MS ? ahead : undefined);
    if (off === undefined || this.outliers.has(taskId)) return;
    this.outliers.add(taskId);
    warnings.push({
      code: 'bad-timestamp',
      message: `lastUpdatedAt is ${formatMs(Math.abs(off))} ${off > 0 ? 'ahead of' : 'behind'} this receiver's clock as its other answers show it: left out of the clock offset`,
    });
  }
}
