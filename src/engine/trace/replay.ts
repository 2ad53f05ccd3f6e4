import type { QueryClient } from '@tanstack/query-core';
import type { TrafficEvent } from '../../mcp';
import { createQueryClient } from '../../tracker/queries';
import { TaskTracker } from '../../tracker/tracker';
import type { ObservationEntry } from '../../tracker/task-store';
import type { InboxEvent, ReplayNews, ReplaySpeed } from '../messages';
import type { TaskParts } from '../outbox';
import { TaskPartsMarks } from '../task-parts';
import type { PageTaskView } from '../task-view';
import { VirtualClock, type RealTimers } from './replay-clock';
import { RecordedPort, normalisedFrom } from './replay-port';
import type { Trace, TraceTask } from './trace-types';

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

/** Past the last recorded moment, replay runs on for this long at most so the last polls can see the end. */
const MAX_TAIL_MS = 10_000;

/**
 * A stretch longer than this with nothing recorded (a preserved log's history from days ago, a far endedAt) is
 * cut down to IDLE_KEPT_MS: replayed whole it would take days at 1× and a poll per interval when seeking.
 */
export const IDLE_GAP_MS = 10_000;
const IDLE_KEPT_MS = 2_000;

/** One macrotask: every microtask the last timer set off (a recorded answer, its merge) has run by then. */
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

/** The end of a replay: the recording's end plus one poll interval, so a task that ended last is seen ending. */
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
 * One replay of a trace, from its start: the same TaskTracker as a live connection, asking a RecordedPort
 * instead of a receiver, on a VirtualClock. Tasks appear at the time they were first seen (tracked as they
 * were then: created, listed, pushed or pasted), recorded pushes, progress, input notes, cancels, traffic and
 * inbox events happen at their recorded times, and polls find whatever the task said last by then. A seek
 * makes a new ReplaySession and runs it to the chosen time, so every store starts clean.
 */
export class ReplaySession {
  readonly clock: VirtualClock;
  readonly tracker: TaskTracker;
  readonly queryClient: QueryClient;
  readonly port: RecordedPort;
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
    this.port = new RecordedPort(trace.tasks, this.clock.now, (taskId) => this.tracker.isTracked(taskId));
    this.tracker = new TaskTracker({
      api: this.port,
      queryClient: this.queryClient,
      connectionId,
      clock: this.clock,
      // Questions the receiver asked are replayed from the inbox record; nothing is opened to wait for them.
      openResultForInput: false,
    });
    this.stops.push(
      this.tracker.store.subscribe(() => {
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
    return this.marks.take(this.tracker, this.queryClient, this.connectionId, view, this.clock.now());
  }

  taskCount(): number {
    return this.tracker.store.getState().order.length;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.clock.clearTimeout(this.cursorTimer);
    for (const stop of this.stops) stop();
    this.tracker.dispose();
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

  private taskEvents(task: TraceTask, events: ReplayEvent[]): void {
    const first = task.entries.find(
      (e): e is ObservationEntry => e.kind === 'observation' && e.status !== null,
    );
    const appear = Math.max(task.firstSeenAt, this.trace.startedAt);
    const listed = task.origin === 'list';
    events.push({
      at: appear,
      run: () => {
        if (listed) {
          void this.tracker.syncList();
          return;
        }
        this.tracker.track(task.taskId, {
          origin: task.origin,
          startedBy: task.startedBy,
          tool: task.tool,
          call: task.call,
          // A pasted id was polled at once; everything else came with what the receiver said of it then.
          initial: task.origin === 'manual' || !first ? undefined : normalisedFrom(task, first),
          source: first?.source === 'poll' ? 'create' : first?.source,
          sentAt: first?.sentAt,
        });
      },
    });
    for (const entry of task.entries) {
      if (entry.at <= appear) continue;
      if (entry.kind === 'observation' && entry.source === 'notification' && entry.status !== null)
        events.push({ at: entry.at, run: () => this.port.push(task, entry) });
      else if (entry.kind === 'observation' && entry.source === 'cancel')
        // Sent when it was sent: its answer then arrives when it arrived.
        events.push({ at: entry.sentAt ?? entry.at, run: () => void this.tracker.cancel(task.taskId) });
      else if (entry.kind === 'observation' && entry.source === 'list')
        events.push({ at: entry.at, run: () => void this.tracker.syncList() });
      else if (entry.kind === 'input')
        events.push({
          at: entry.at,
          run: () =>
            this.tracker.noteInput(task.taskId, {
              method: entry.method,
              phase: entry.phase,
              detail: entry.detail,
            }),
        });
      else if (entry.kind === 'progress')
        events.push({
          at: entry.at,
          run: () =>
            this.port.activity(task.taskId, {
              kind: 'progress',
              progress: entry.progress,
              total: entry.total,
              message: entry.message,
            }),
        });
      else if (entry.kind === 'log')
        events.push({
          at: entry.at,
          run: () =>
            this.port.activity(task.taskId, {
              kind: 'log',
              level: entry.level,
              logger: entry.logger,
              text: entry.text,
            }),
        });
    }
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
