import type { Clock } from '../../tracker/tracker-types';

/** The real timers the virtual clock rides on; tests hand in fake ones. */
export interface RealTimers {
  now: () => number;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

const systemTimers: RealTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** A real timer holds at most this (browsers and Node fire longer ones at once); longer waits re-arm. */
const MAX_REAL_WAIT_MS = 2 ** 31 - 1;

interface VirtualTimer {
  id: number;
  due: number;
  fn: () => void;
}

/**
 * The time of a replay: `now()` reads the recording's wall clock, and timers fire in the order of their due
 * times, however fast the replay runs. Playing, virtual time runs at `speed` times real time; paused, it
 * stands; `runUntil` moves it forward as fast as the work it sets off allows (seeking, "instant").
 */
export class VirtualClock implements Clock {
  private virtualAt: number;
  private realAt: number;
  private running = false;
  private rate = 1;
  private readonly timers = new Map<number, VirtualTimer>();
  private nextId = 1;
  private realTimer: unknown;
  /** Set while runUntil drives time: real timers stay off so nothing fires out of turn. */
  private driving = false;
  /** Whether time runs once the drive is over: play and pause commands that come during it are held here. */
  private playAfterDrive = false;
  /** A disposed clock stays stopped: a seek still driving when its replay was replaced must not start it. */
  private disposed = false;

  constructor(
    start: number,
    private readonly real: RealTimers = systemTimers,
  ) {
    this.virtualAt = start;
    this.realAt = real.now();
  }

  now = (): number =>
    this.running ? this.virtualAt + (this.real.now() - this.realAt) * this.rate : this.virtualAt;

  setTimeout = (fn: () => void, ms: number): unknown => {
    if (this.disposed) return 0;
    const wait = Number.isFinite(ms) ? Math.max(0, ms) : ms > 0 ? Infinity : 0;
    const timer = { id: this.nextId++, due: this.now() + wait, fn };
    this.timers.set(timer.id, timer);
    this.arm();
    return timer.id;
  };

  clearTimeout = (handle: unknown): void => {
    if (typeof handle !== 'number' || !this.timers.delete(handle)) return;
    this.arm();
  };

  get playing(): boolean {
    return this.running;
  }

  get speed(): number {
    return this.rate;
  }

  /** The anchor the page needs to follow this clock: virtual `at` was true at real `realAt`. */
  anchor(): { at: number; realAt: number; speed: number; playing: boolean } {
    return { at: this.now(), realAt: this.real.now(), speed: this.rate, playing: this.running };
  }

  play(): void {
    if (this.disposed) return;
    if (this.driving) {
      this.playAfterDrive = true;
      return;
    }
    if (this.running) return;
    this.realAt = this.real.now();
    this.running = true;
    this.arm();
  }

  pause(): void {
    if (this.driving) this.playAfterDrive = false;
    if (!this.running) return;
    this.virtualAt = this.now();
    this.running = false;
    this.arm();
  }

  setSpeed(speed: number): void {
    this.virtualAt = this.now();
    this.realAt = this.real.now();
    this.rate = speed;
    this.arm();
  }

  /** Pending timers, for tests and for telling when a replay has nothing left to do. */
  pending(): number {
    return this.timers.size;
  }

  /**
   * Fires every timer due up to `target`, one at a time in due order, letting the work each sets off settle
   * before the next. Time then stands at `target`.
   */
  async runUntil(target: number, settle: () => Promise<void>): Promise<void> {
    if (this.disposed) return;
    const wasRunning = this.running;
    if (wasRunning) this.pause();
    this.driving = true;
    this.playAfterDrive = wasRunning;
    this.arm();
    try {
      for (;;) {
        if (this.disposed) return;
        const next = this.earliest();
        if (!next || next.due > target) break;
        this.timers.delete(next.id);
        this.virtualAt = Math.max(this.virtualAt, next.due);
        next.fn();
        await settle();
      }
      this.virtualAt = Math.max(this.virtualAt, target);
    } finally {
      this.driving = false;
    }
    if (this.disposed) return;
    if (this.playAfterDrive) this.play();
    else this.arm();
  }

  /**
   * Jumps time forward by `ms` and every pending timer with it: the replay skips a long stretch in which
   * nothing was recorded.
   */
  skip(ms: number): void {
    if (this.disposed || !(ms > 0)) return;
    this.virtualAt = this.now() + ms;
    this.realAt = this.real.now();
    for (const timer of this.timers.values()) timer.due += ms;
    this.arm();
  }

  /** Stops every timer for good: nothing starts it again. */
  dispose(): void {
    this.disposed = true;
    this.timers.clear();
    this.running = false;
    this.arm();
  }

  private earliest(): VirtualTimer | undefined {
    let first: VirtualTimer | undefined;
    for (const timer of this.timers.values())
      if (!first || timer.due < first.due || (timer.due === first.due && timer.id < first.id)) first = timer;
    return first;
  }

  /** One real timer, for the earliest virtual one, while playing. */
  private arm(): void {
    if (this.realTimer !== undefined) this.real.clearTimeout(this.realTimer);
    this.realTimer = undefined;
    if (!this.running || this.driving) return;
    const next = this.earliest();
    if (!next) return;
    const wait = Math.min(MAX_REAL_WAIT_MS, Math.max(0, (next.due - this.now()) / this.rate));
    this.realTimer = this.real.setTimeout(() => {
      this.realTimer = undefined;
      this.fireDue();
    }, wait);
  }

  /** Fires what is due now, oldest first. Time keeps running (a late real timer is late, as in live mode). */
  private fireDue(): void {
    for (;;) {
      const next = this.earliest();
      if (!next || next.due > this.now()) break;
      this.timers.delete(next.id);
      next.fn();
    }
    this.arm();
  }
}
