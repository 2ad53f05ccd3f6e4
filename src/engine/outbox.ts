import { forTrafficLog, type ClassifiedError, type TrafficEvent } from '../mcp';
import { TrafficLog } from './traffic-log';
import { TrafficWindowFeed, type TrafficWindowRequest } from './traffic-window';
import { PageTaskView, type TaskViewRequest } from './task-views';
import type {
  Batch,
  ConnectionNews,
  FromEngine,
  InboxEvent,
  ListStatus,
  PollingHealth,
  ReplayNews,
} from './messages';

/** Traffic waiting for the page beyond this is dropped, oldest first, and counted. */
const MAX_PENDING_TRAFFIC = 2000;
/** Inbox events waiting for the page beyond this are dropped, oldest first. */
const MAX_PENDING_INBOX = 1000;
/**
 * Past this many tracked tasks, batches are spaced: the gap grows with the tasks, from 100 ms to 250 ms at a
 * thousand. Every batch is a render of the page, and at a thousand tasks most of what each carries is out of
 * view; a command's reply still goes at once with what it changed (a click on a task waits for no gap).
 */
const MANY_TASKS = 200;
export const batchGapMs = (tasks: number): number =>
  tasks > MANY_TASKS ? Math.min(250, Math.max(100, tasks / 4)) : 0;

/** The connection's part of a batch, of what the page shows: records, the list's window, overview, snapshots, results. */
export type TaskParts = Pick<
  Batch,
  'connectionId' | 'tasks' | 'snapshots' | 'results' | 'taskList' | 'overview'
>;

export interface OutboxSource {
  /** Takes what changed on the current connection since the last batch, of what the page shows. */
  takeTaskParts: (view: PageTaskView) => TaskParts;
  /** How many tasks the current connection tracks, for the batch pacing. */
  taskCount: () => number;
}

/**
 * What waits to go to the page, and when it goes. One batch is out at a time: the next waits for the page's
 * ack, so a busy page makes changes coalesce here instead of queuing as messages. A batch that cannot be
 * copied to the page (a receiver's value no structured clone can follow) goes again without the receiver's
 * bodies, so the page never stops hearing.
 */
export class Outbox {
  /** What changed about the connection since the last batch; write a field and call schedule(). */
  news: ConnectionNews = {};
  listStatus: ListStatus | undefined;
  polling: PollingHealth | undefined;
  refused: string | undefined;
  /** Where a replay stands; set while a trace is replayed. */
  replay: ReplayNews | undefined;
  /** The whole traffic log: the page holds a copy of its rows only while it mirrors it (the report card). */
  private readonly trafficLog = new TrafficLog();
  /** What the open drawer shows of the log, filtered here: the rows in view and the opened message. */
  private readonly trafficWindow = new TrafficWindowFeed(this.trafficLog);
  /** The drawer asked anew since the last batch. */
  private trafficWindowAsked = false;
  /** Events for the page's mirror, since the last batch. */
  private traffic: TrafficEvent[] = [];
  private trafficDropped = 0;
  private mirror = false;
  /** The next batch carries the whole log: the page's mirror starts from it. */
  private mirrorSync = false;
  private trafficCountsChanged = false;
  /** The page's last clear of the log: batches say which one they follow. */
  private trafficEpoch = 0;
  private inbox: InboxEvent[] = [];
  /** What the page shows of the tasks; every record until it says (the command line never does). */
  private readonly taskView = new PageTaskView();
  private credit = true;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private lastFlushAt = 0;

  constructor(
    private readonly post: (message: FromEngine) => void,
    private readonly source: OutboxSource,
  ) {}

  /** The page applied the last batch: the next may go. */
  ack(): void {
    this.credit = true;
    this.schedule();
  }

  addTraffic(event: TrafficEvent): void {
    const kept = forTrafficLog(event);
    this.trafficLog.add(kept);
    this.trafficCountsChanged = true;
    if (this.mirror && !this.mirrorSync) {
      this.traffic.push(kept);
      if (this.traffic.length > MAX_PENDING_TRAFFIC * 2) {
        const drop = this.traffic.length - MAX_PENDING_TRAFFIC;
        this.traffic.splice(0, drop);
        this.trafficDropped += drop;
      }
    }
    this.schedule();
  }

  /**
   * The page holds the log's rows (on) or only its counts (off). On, the next batch carries the whole log, then
   * each batch what was added since.
   */
  setTrafficMirror(on: boolean): void {
    this.mirror = on;
    this.mirrorSync = on;
    this.traffic = [];
    this.trafficDropped = 0;
    this.trafficCountsChanged = true;
    this.schedule();
  }

  /** What the drawer shows (null: closed). The next batch carries its window if it changed. */
  setTrafficWindow(request: TrafficWindowRequest | null): void {
    this.trafficWindow.set(request ?? undefined);
    this.trafficWindowAsked = true;
    this.schedule();
  }

  /** The page cleared the log (`epoch` numbers its clears): so does the engine, and batches say they follow it. */
  clearTraffic(epoch: number): void {
    this.trafficEpoch = epoch;
    this.trafficLog.clear();
    this.traffic = [];
    this.trafficDropped = 0;
    // The page emptied its mirror itself: what comes after the clear is all it lacks.
    this.mirrorSync = false;
    this.trafficCountsChanged = true;
    this.schedule();
  }

  /** The page shows other tasks, rows or an overview: the next batch brings what it lacks of them. */
  setTaskView(request: TaskViewRequest): void {
    this.taskView.set(request);
    this.schedule();
  }

  /** Every event the log keeps (of one connection, when given), for an export. */
  trafficEvents(connectionId?: number): TrafficEvent[] {
    return this.trafficLog.events(connectionId);
  }

  addInbox(event: InboxEvent): void {
    this.inbox.push(event);
    if (this.inbox.length > MAX_PENDING_INBOX) this.inbox.splice(0, this.inbox.length - MAX_PENDING_INBOX);
    this.schedule();
  }

  /** Forgets what belonged to the connection that just closed (traffic and inbox events stay: they are the page's record). */
  forgetConnection(): void {
    this.news = {};
    this.listStatus = undefined;
    this.polling = undefined;
    this.refused = undefined;
    this.replay = undefined;
  }

  /**
   * Drops the traffic log and inbox events not yet sent: a replay (or a seek back in one) starts the log
   * afresh, as the page did before asking for it, and must not show what it plays twice.
   */
  dropPending(): void {
    this.trafficLog.clear();
    this.traffic = [];
    this.trafficDropped = 0;
    this.trafficCountsChanged = true;
    this.inbox = [];
  }

  /** A command's answer, after the batch that carries what the command changed. */
  reply(id: number, outcome: { value: unknown } | { failure: ClassifiedError }): void {
    this.flush(true);
    if ('failure' in outcome) {
      this.send({ type: 'reply', id, failure: outcome.failure });
      return;
    }
    const failure = this.send({ type: 'reply', id, value: outcome.value });
    if (failure)
      this.send({
        type: 'reply',
        id,
        failure: { kind: 'other', message: `the answer could not reach the page: ${failure}` },
      });
  }

  /** Sends what is pending now, whatever the credit: the connection it belongs to is about to go. */
  sendNow(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.flush(true);
  }

  /** Sends soon, if the page has taken the last batch; otherwise changes keep coalescing here. */
  schedule(): void {
    if (!this.credit || this.flushTimer !== undefined) return;
    // With hundreds of tasks, a batch every frame costs the page more than anyone sees (bench:ui): then
    // batches are spaced out, and each carries more.
    const gap = batchGapMs(this.source.taskCount());
    const wait = gap > 0 ? Math.max(0, this.lastFlushAt + gap - Date.now()) : 0;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      if (this.credit) this.flush(false);
    }, wait);
  }

  /** `force`: send now whatever the credit (before a reply, so the page sees what the command did). */
  private flush(force: boolean): void {
    const batch = this.take();
    if (!batch) return;
    this.lastFlushAt = Date.now();
    if (this.send(batch) === undefined) {
      if (!force) this.credit = false;
      return;
    }
    const slim: Batch = {
      ...batch,
      snapshots: [],
      results: [],
      traffic: [],
      // The window stays whole: its lines carry no bodies, and its opened message is the log's copy, made
      // fit for a structured clone when it was logged (forTrafficLog).
      inbox: batch.inbox.filter((e) => e.kind === 'settled'),
      refused: 'Some data from the receiver could not be passed to the page and was dropped',
    };
    if (this.send(slim) === undefined && !force) this.credit = false;
  }

  /** Posts to the page; returns why it failed (a structured-clone error), or undefined when it went. */
  private send(message: FromEngine): string | undefined {
    try {
      this.post(message);
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  private take(): Batch | null {
    const parts = this.source.takeTaskParts(this.taskView);
    const hasNews = Object.keys(this.news).length > 0;
    // Once per batch at most, and only when the log or the request moved.
    const trafficWindow =
      this.trafficWindowAsked || this.trafficCountsChanged ? this.trafficWindow.take() : undefined;
    this.trafficWindowAsked = false;
    const empty =
      !parts.tasks &&
      !parts.taskList &&
      !parts.overview &&
      parts.snapshots.length === 0 &&
      parts.results.length === 0 &&
      this.traffic.length === 0 &&
      !this.mirrorSync &&
      !this.trafficCountsChanged &&
      !trafficWindow &&
      this.inbox.length === 0 &&
      !hasNews &&
      !this.listStatus &&
      !this.polling &&
      !this.refused &&
      !this.replay;
    if (empty) return null;
    const sync = this.mirrorSync;
    const batch: Batch = {
      type: 'batch',
      ...parts,
      traffic: sync ? this.trafficLog.events() : this.traffic,
      trafficDropped: this.trafficDropped,
      trafficSync: sync || undefined,
      trafficCount: this.trafficCountsChanged ? this.trafficLog.counts() : undefined,
      trafficWindow,
      trafficEpoch: this.trafficEpoch,
      inbox: this.inbox,
      connection: hasNews ? this.news : undefined,
      listStatus: this.listStatus,
      polling: this.polling,
      refused: this.refused,
      replay: this.replay,
    };
    this.traffic = [];
    this.trafficDropped = 0;
    this.mirrorSync = false;
    this.trafficCountsChanged = false;
    this.inbox = [];
    this.forgetConnection();
    return batch;
  }
}
