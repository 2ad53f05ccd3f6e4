import { MinHeap } from './min-heap';
import type { Clock } from './tracker-types';

interface Entry {
  due: number;
  seq: number;
  fn: () => void;
  /** Cleared, or fired: popped and dropped when its time comes. */
  done: boolean;
}

/** Entries cleared before their time are dropped in one sweep once they outnumber the live ones past this. */
const SWEEP_AT = 1024;

/**
 * Many timers on one: a Clock whose timers wait in a heap ordered by due time, under a single timer of the
 * clock beneath, set for the earliest. A thousand tasks each polled every second cost one timer armed (and
 * rarely re-armed) instead of a setTimeout and a clearTimeout per poll. Timers due at once fire in due order,
 * then in the order they were set.
 */
export class TimerQueue implements Clock {
  private readonly heap = new MinHeap<Entry>((a, b) => a.due < b.due || (a.due === b.due && a.seq < b.seq));
  private seq = 0;
  private cleared = 0;
  private armed: { due: number; handle: unknown } | undefined;
  private disposed = false;

  constructor(private readonly clock: Clock) {}

  now = (): number => this.clock.now();

  /** Due times are kept on the clock that only moves forward: a wall clock set back or forward moves no timer. */
  elapsed = (): number => this.clock.elapsed?.() ?? this.clock.now();

  setTimeout = (fn: () => void, ms: number): unknown => {
    if (this.disposed) return undefined;
    const wait = Number.isNaN(ms) ? 0 : Math.max(0, ms);
    const entry: Entry = { due: this.elapsed() + wait, seq: this.seq++, fn, done: false };
    this.heap.push(entry);
    this.arm();
    return entry;
  };

  clearTimeout = (handle: unknown): void => {
    const entry = handle as Entry | undefined;
    if (!entry || entry.done || this.disposed) return;
    entry.done = true;
    this.cleared++;
    if (this.cleared > SWEEP_AT && this.cleared > this.heap.size / 2) this.sweep();
  };

  /** Stops the timer beneath; timers still waiting never fire. */
  dispose(): void {
    this.disposed = true;
    if (this.armed) this.clock.clearTimeout(this.armed.handle);
    this.armed = undefined;
    this.heap.drain();
    this.cleared = 0;
  }

  /** Timers set and not yet fired or cleared. */
  get size(): number {
    return this.heap.size - this.cleared;
  }

  private fire = (): void => {
    this.armed = undefined;
    const now = this.elapsed();
    // Only timers set before this firing: one set meanwhile for 0 ms waits for the next turn, as a timer would.
    const setBefore = this.seq;
    for (let top = this.heap.peek(); top && top.due <= now && top.seq < setBefore; top = this.heap.peek()) {
      this.heap.pop();
      if (top.done) {
        this.cleared--;
        continue;
      }
      top.done = true;
      try {
        top.fn();
      } catch (error) {
        // One timer's failure must not stop the others: report it as an uncaught timer error would be.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    this.arm();
  };

  private arm(): void {
    while (this.heap.peek()?.done) {
      this.heap.pop();
      this.cleared--;
    }
    const top = this.heap.peek();
    if (!top) {
      if (this.armed) this.clock.clearTimeout(this.armed.handle);
      this.armed = undefined;
      return;
    }
    if (this.armed && this.armed.due <= top.due) return;
    if (this.armed) this.clock.clearTimeout(this.armed.handle);
    this.armed = { due: top.due, handle: this.clock.setTimeout(this.fire, top.due - this.elapsed()) };
  }

  private sweep(): void {
    this.heap.retain((entry) => !entry.done);
    this.cleared = 0;
  }
}
