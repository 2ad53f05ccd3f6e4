import type { TaskSnapshot, Warning } from '../mcp';
import { CLOCK_OUTLIER_MS, ClockOffsetEstimator } from './merge';
import type { ObservationSource, TasksStore } from './task-store';
import { formatMs } from './ttl';

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
