/**
 * One receiver's requests from the tracker, within a connection budget. A browser gives a page about six
 * HTTP/1.1 connections per origin; the notification stream and the person's own actions (create, cancel,
 * answers) each keep one, and polls and result fetches share the rest. A full budget queues work: results
 * first (a completed task's result must not wait behind a thousand polls), then polls, the latest-due first,
 * so a busy receiver or a slow browser delays every task a little instead of starving some.
 */

import { MinHeap } from './min-heap';

export type Lane = 'result' | 'poll';

interface Job {
  lane: Lane;
  /** When the work became due (local ms); polls go out most-overdue first. */
  dueAt: number;
  seq: number;
  start: () => void;
  cancel: (error: Error) => void;
}

export interface SchedulerStats {
  slots: number;
  inFlight: number;
  queuedPolls: number;
  queuedResults: number;
  /** Polls sent per second over the last window. */
  pollsPerSecond: number;
  /** Median wait in the queue over the last window, ms. */
  queueWaitMedianMs: number;
}

const WINDOW_MS = 5000;
/** Cap on the queue: each task has at most one request out or queued, so this bounds even a huge tracked set. */
const MAX_QUEUED = 20_000;

export class SchedulerClosed extends Error {
  override readonly name = 'SchedulerClosed';
}

export class RequestScheduler {
  private slots: number;
  private inFlight = 0;
  private seq = 0;
  private closed = false;
  private readonly results: Job[] = [];
  /** Polls by (dueAt, seq): thousands queued cost log n each, not a sort per poll. */
  private readonly polls = new MinHeap<Job>(
    (a, b) => a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq),
  );
  /** (sent at, queue wait) of recent polls, for the stats. */
  private readonly recent: Array<{ at: number; waitMs: number }> = [];

  constructor(
    options: { slots: number },
    private readonly now: () => number = () => Date.now(),
  ) {
    this.slots = Math.max(1, Math.floor(options.slots));
  }

  /** The budget may change while connected (a notification stream opens, or is refused). */
  setSlots(slots: number): void {
    this.slots = Math.max(1, Math.floor(slots));
    this.pump();
  }

  /** Runs `work` when a slot is free; the slot is held until its promise settles. */
  run<T>(lane: Lane, dueAt: number, work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new SchedulerClosed('connection closed'));
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        lane,
        dueAt,
        seq: this.seq++,
        start: () => {
          if (lane === 'poll') this.note(Math.max(0, this.now() - dueAt));
          let promise: Promise<T>;
          try {
            promise = work();
          } catch (error) {
            promise = Promise.reject(error);
          }
          promise.then(resolve, reject).finally(() => {
            this.inFlight--;
            this.pump();
          });
        },
        cancel: reject,
      };
      if (this.polls.size + this.results.length >= MAX_QUEUED) {
        reject(new Error('too many requests queued for this receiver'));
        return;
      }
      if (lane === 'result') this.results.push(job);
      else this.polls.push(job);
      this.pump();
    });
  }

  /** Rejects everything still queued; what is in flight finishes on its own. */
  close(): void {
    this.closed = true;
    const error = new SchedulerClosed('connection closed');
    for (const job of [...this.results.splice(0), ...this.polls.drain()]) job.cancel(error);
  }

  stats(): SchedulerStats {
    this.trim();
    const waits = this.recent.map((r) => r.waitMs).sort((a, b) => a - b);
    const span = Math.min(WINDOW_MS, Math.max(1000, this.now() - (this.recent[0]?.at ?? this.now())));
    return {
      slots: this.slots,
      inFlight: this.inFlight,
      queuedPolls: this.polls.size,
      queuedResults: this.results.length,
      pollsPerSecond: (this.recent.length * 1000) / span,
      queueWaitMedianMs: waits[Math.floor(waits.length / 2)] ?? 0,
    };
  }

  private pump(): void {
    while (this.inFlight < this.slots) {
      const job = this.results.shift() ?? this.polls.pop();
      if (!job) return;
      this.inFlight++;
      job.start();
    }
  }

  private note(waitMs: number): void {
    this.recent.push({ at: this.now(), waitMs });
    if (this.recent.length > 4096) this.trim();
  }

  private trim(): void {
    const cutoff = this.now() - WINDOW_MS;
    let drop = 0;
    while (drop < this.recent.length && (this.recent[drop]?.at ?? Infinity) < cutoff) drop++;
    if (drop > 0) this.recent.splice(0, drop);
    if (this.recent.length > 4096) this.recent.splice(0, this.recent.length - 4096);
  }
}

/** No budget: every request goes out at once (Node tests and tools that talk to one task at a time). */
export const unlimitedScheduler = (): Pick<RequestScheduler, 'run'> => ({
  run: (_lane, _dueAt, work) => work(),
});
