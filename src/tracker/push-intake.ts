import type { Normalised, TaskSnapshot } from '../mcp';
import { AUTO_TRACK_PER_MINUTE, MAX_SEEN_UNTRACKED, PUSH_COALESCE_MS } from './limits';
import type { Clock } from './tracker-types';

type Update = Normalised<TaskSnapshot | null>;

export interface PushIntakeDeps {
  clock: Clock;
  isTracked: (taskId: string) => boolean;
  /** True while pushes for unknown tasks are not to be followed (a plain call is out). */
  ignoreUnknown?: () => boolean;
  /** Start following a task a push named (with the push as its first answer, when there is one). */
  track: (taskId: string, update?: Update) => void;
  /** Merge a push into a followed task. */
  observe: (taskId: string, update: Update) => void;
  /** How many pushed task ids wait beyond the automatic limit. */
  untracked: (count: number) => void;
}

/**
 * Status pushes, held to a pace a receiver cannot push past. The first push for a task is merged at once;
 * more within PUSH_COALESCE_MS are coalesced (the latest wins), so thousands a second cost one merge per task
 * per window. A push for a task not followed starts following it, up to AUTO_TRACK_PER_MINUTE a minute; the
 * rest are counted and offered (trackSeen).
 */
export class PushIntake {
  /** When each recent automatic track from a push happened, for the per-minute limit. */
  private readonly autoTracked: number[] = [];
  private readonly seenUntracked = new Set<string>();
  private readonly lastPushAt = new Map<string, number>();
  private readonly pending = new Map<string, Update>();
  private readonly timers = new Map<string, unknown>();
  private disposed = false;

  constructor(private readonly deps: PushIntakeDeps) {}

  receive(taskId: string, update: Update): void {
    const { clock } = this.deps;
    const now = clock.now();
    if (!this.deps.isTracked(taskId)) {
      if (this.deps.ignoreUnknown?.()) return;
      while ((this.autoTracked[0] ?? Infinity) <= now - 60_000) this.autoTracked.shift();
      if (this.autoTracked.length >= AUTO_TRACK_PER_MINUTE) {
        if (!this.seenUntracked.has(taskId) && this.seenUntracked.size < MAX_SEEN_UNTRACKED) {
          this.seenUntracked.add(taskId);
          this.deps.untracked(this.seenUntracked.size);
        }
        return;
      }
      this.autoTracked.push(now);
      this.lastPushAt.set(taskId, now);
      this.deps.track(taskId, update);
      return;
    }
    const last = this.lastPushAt.get(taskId) ?? -Infinity;
    if (now - last >= PUSH_COALESCE_MS && !this.pending.has(taskId)) {
      this.lastPushAt.set(taskId, now);
      this.deps.observe(taskId, update);
      return;
    }
    const waiting = this.pending.has(taskId);
    this.pending.set(taskId, update);
    if (waiting) return;
    this.timers.set(
      taskId,
      clock.setTimeout(
        () => {
          this.timers.delete(taskId);
          const latest = this.pending.get(taskId);
          this.pending.delete(taskId);
          if (!latest || this.disposed) return;
          this.lastPushAt.set(taskId, clock.now());
          this.deps.observe(taskId, latest);
        },
        Math.max(0, last + PUSH_COALESCE_MS - now),
      ),
    );
  }

  /** Follows the task ids that pushes named beyond the automatic limit, up to `max` of them. */
  trackSeen(max: number): number {
    let count = 0;
    for (const taskId of this.seenUntracked) {
      if (count >= max) break;
      this.seenUntracked.delete(taskId);
      if (!this.deps.isTracked(taskId)) {
        this.deps.track(taskId);
        count++;
      }
    }
    this.deps.untracked(this.seenUntracked.size);
    return count;
  }

  dispose(): void {
    this.disposed = true;
    for (const timer of this.timers.values()) this.deps.clock.clearTimeout(timer);
    this.timers.clear();
  }
}
