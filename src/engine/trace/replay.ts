import type { QueryClient } from '@tanstack/query-core';
import type { TrafficEvent } from '../../mcp';
import { createQueryClient } from '../../tracker/queries';
import type { InboxEvent, ReplayNews, ReplaySpeed } from '../messages';
import type { TaskParts } from '../outbox';
import { TaskPartsMarks } from '../task-parts';
import type { PageTaskView } from '../task-views';
import { VirtualClock, type RealTimers } from './replay-clock';
import { RecordedTasks } from './replay-records';
import type { Trace, TraceTask } from './schema';

export type { ReplayNews, ReplaySpeed };

export interface ReplayOutput {
  traffic: (event: TrafficEvent) => void;
  inbox: (event: InboxEvent) => void;
  /** Something for the next batch changed (tasks, snapshots, results, the replay's state). */
  changed: () => void;
}

export interface ReplayOptions {
  real?: RealTimers;
  /** Lets the work one timer set off finish before the next fires while seeking; a macrotask by default. */
  settle?: () => Promise<void>;
}

/** Past the last recorded moment, replay runs on for this long at most: the last task's end stays in view. */
const MAX_TAIL_MS = 10_000;

/**
 * A stretch longer than this with nothing recorded (a preserved log's history from days ago, a far endedAt) is
 * cut down to IDLE_KEPT_MS, or it would take days at 1×. Shorter waits (a ttl running out before its purge)
 * play whole: their length is what the recording shows. The times shown are the recorded ones either way.
 */
export const IDLE_GAP_MS = 5 * 60_000;
const IDLE_KEPT_MS = 2_000;

/** One macrotask: every microtask the last timer set off has run by then. */
export function macrotask(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  if (typeof immediate === 'function') return new Promise((resolve) => immediate(resolve));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/** The end of a replay: the recording's end plus one poll interval, as a live page would have gone on watching. */
export function replayEnd(trace: Trace): number {
  let interval = 0;
  for (const task of trace.tasks)
    for (const entry of task.entries)
      if (entry.kind === 'observation' && entry.pollInterval !== undefined)
        interval = Math.max(interval, entry.pollInterval);
  return trace.endedAt + Math.min(MAX_TAIL_MS, (interval || 1000) + 250);
}

interface ReplayEvent {
  at: number;
  run: () => void;
}

/**
 * One replay of a trace, from its start, on a VirtualClock: tasks appear when they were first seen, and every
 * entry of their timelines (polls, pushes, results, probes, purges, cancels, progress, input), every traffic
 * row and inbox event comes back at its recorded time, with its recorded timestamps (RecordedTasks). Nothing
 * is re-decided: no tracker asks again on the replay's clock, so each interval is the recording's, scaled by
 * the speed, and "instant" keeps the recorded order. A seek makes a new ReplaySession and runs it to the
 * chosen time, so every store starts clean.
 */
export class ReplaySession {
  readonly clock: VirtualClock;
  readonly tasks: RecordedTasks;
  readonly queryClient: QueryClient;
  readonly end: number;
  private readonly marks = new TaskPartsMarks();
  private readonly events: ReplayEvent[];
  private cursor = 0;
  private cursorTimer: unknown;
  private speedChoice: ReplaySpeed = 1;
  private ended = false;
  private disposed = false;
  private readonly stops: Array<() => void> = [];
  private readonly settle: () => Promise<void>;

  constructor(
    readonly trace: Trace,
    readonly connectionId: number,
    private readonly out: ReplayOutput,
    options: ReplayOptions = {},
  ) {
    this.settle = options.settle ?? macrotask;
    this.clock = new VirtualClock(trace.startedAt, options.real);
    this.end = replayEnd(trace);
    this.queryClient = createQueryClient({ sharing: false });
    this.tasks = new RecordedTasks(this.queryClient, connectionId);
    this.stops.push(
      this.tasks.store.subscribe(() => {
        this.marks.tasksChanged();
        this.out.changed();
      }),
      this.queryClient.getQueryCache().subscribe((event) => {
        if (this.marks.cacheChanged(event)) this.out.changed();
      }),
    );
    this.events = this.buildEvents();
    this.armCursor();
  }

  /** Runs to `at` as fast as the recording answers, then plays on at `speed` (instant: on to the end). */
  async start(at: number, speed: ReplaySpeed, play = true): Promise<void> {
    this.speedChoice = speed;
    const target = speed === 'instant' ? this.end : Math.min(Math.max(at, this.trace.startedAt), this.end);
    await this.clock.runUntil(target, this.settle);
    if (this.disposed) return;
    if (this.clock.now() >= this.end) this.finish();
    else if (speed !== 'instant') {
      this.clock.setSpeed(speed);
      if (play) this.clock.play();
    }
    this.out.changed();
  }

  play(): void {
    if (this.disposed || this.ended) return;
    if (this.speedChoice === 'instant') {
      void this.start(this.end, 'instant');
      return;
    }
    this.clock.play();
    this.out.changed();
  }

  pause(): void {
    this.clock.pause();
    this.out.changed();
  }

  setSpeed(speed: ReplaySpeed): void {
    this.speedChoice = speed;
    if (speed === 'instant') {
      void this.start(this.end, 'instant');
      return;
    }
    this.clock.setSpeed(speed);
    this.out.changed();
  }

  news(): ReplayNews {
    const anchor = this.clock.anchor();
    return {
      at: Math.min(anchor.at, this.end),
      realAt: anchor.realAt,
      speed: this.speedChoice,
      playing: anchor.playing && !this.ended,
      ended: this.ended,
      startedAt: this.trace.startedAt,
      endedAt: this.end,
    };
  }

  /** What changed since the last batch: task records, snapshots, results (as the live host takes them). */
  takeTaskParts(view: PageTaskView): TaskParts {
    return this.marks.take(this.tasks, this.queryClient, this.connectionId, view, this.clock.now());
  }

  taskCount(): number {
    return this.tasks.store.getState().order.length;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.clock.clearTimeout(this.cursorTimer);
    for (const stop of this.stops) stop();
    this.clock.dispose();
    this.queryClient.clear();
  }

  private finish(): void {
    this.ended = true;
    this.clock.pause();
    this.out.changed();
  }

  /** Everything the recording did by itself, in time order. */
  private buildEvents(): ReplayEvent[] {
    const events: ReplayEvent[] = [];
    for (const task of this.trace.tasks) this.taskEvents(task, events);
    for (const event of this.trace.inbox) {
      const at = event.kind === 'asked' ? event.request.receivedAt : (event.at ?? this.trace.endedAt);
      const relabelled: InboxEvent =
        event.kind === 'asked'
          ? { ...event, request: { ...event.request, connectionId: this.connectionId } }
          : event;
      events.push({ at, run: () => this.out.inbox(relabelled) });
    }
    for (const event of this.trace.traffic) {
      // The replay is one connection of the page: the recording's own connection numbers mean nothing here.
      const relabelled = { ...event, connectionId: this.connectionId };
      events.push({ at: event.wallTime, run: () => this.out.traffic(relabelled) });
    }
    events.push({ at: this.end, run: () => this.finish() });
    // Stable: events of one moment keep the order the recording had.
    return events
      .map((e, i) => ({ e, i }))
      .sort((a, b) => a.e.at - b.e.at || a.i - b.i)
      .map(({ e }) => e);
  }

  /**
   * The task's appearance, then each entry at its recorded time (a result's request also at its sentAt). A
   * time that goes back within the task (a hostile or hand-edited trace) is held at the one before, so the
   * timeline keeps the order it was recorded in.
   */
  private taskEvents(task: TraceTask, events: ReplayEvent[]): void {
    let at = Math.max(task.firstSeenAt, this.trace.startedAt);
    events.push({ at, run: () => this.tasks.appear(task) });
    const polls = task.entries
      .filter((e) => (e.kind === 'observation' || e.kind === 'error') && e.source === 'poll')
      .map((e) => ('sentAt' in e && e.sentAt !== undefined ? e.sentAt : e.at));
    let nextPoll = 0;
    task.entries.forEach((entry, i) => {
      at = Math.max(at, entry.at);
      while (nextPoll < polls.length && (polls[nextPoll] as number) <= entry.at) nextPoll++;
      const nextPollAt = polls[nextPoll];
      const last = i === task.entries.length - 1;
      if (entry.kind === 'result' && entry.sentAt < entry.at)
        events.push({
          at: Math.max(entry.sentAt, this.trace.startedAt),
          run: () => this.tasks.resultSent(task),
        });
      events.push({ at, run: () => this.tasks.apply(task, entry, nextPollAt, last) });
    });
  }

  /** One virtual timer for the next recorded event: thousands of traffic rows need not be thousands of timers. */
  private armCursor(): void {
    const next = this.events[this.cursor];
    if (!next || this.disposed) return;
    this.cursorTimer = this.clock.setTimeout(() => {
      this.cursorTimer = undefined;
      const now = this.clock.now();
      while (this.cursor < this.events.length && (this.events[this.cursor] as ReplayEvent).at <= now) {
        const event = this.events[this.cursor++] as ReplayEvent;
        try {
          event.run();
        } catch (error) {
          // One odd record must not stop the replay; what it would have shown is missing, the rest goes on.
          console.error('Taskscope: a recorded event could not be replayed', error);
        }
      }
      this.skipIdle();
      this.armCursor();
    }, next.at - this.clock.now());
  }

  private skipIdle(): void {
    const next = this.events[this.cursor];
    if (!next || this.disposed) return;
    const gap = next.at - this.clock.now();
    if (gap <= IDLE_GAP_MS) return;
    this.clock.skip(gap - IDLE_KEPT_MS);
    this.out.changed();
  }
}
