import { BoundedLists, type TrafficEvent } from '../mcp';
import { MAX_METHODS, RowFilter, sameFilter, type TrafficFilter } from './traffic-filter';
import type { TrafficLog } from './traffic-log';
import type { RowWatcher, TrafficRow } from './traffic-rows';

/**
 * What the traffic drawer shows, so that only that crosses to the page: the rows in view under its filter,
 * and the opened message. The engine holds the log (20,000 messages with their bodies); the page, a screenful.
 */
export interface TrafficWindowRequest {
  filter: TrafficFilter;
  /** The current connection: a task's own traffic ("Task traffic") is that connection's. */
  connectionId?: number;
  /** The filtered rows the page draws or may soon draw: [start, start + count), oldest first. */
  start: number;
  count: number;
  /** The newest rows instead of `start`: the page keeps them in view as they come. */
  follow: boolean;
  /** The opened row, by its n: it comes whole (bodies, HTTP exchange) for the detail. */
  opened?: number;
}

/** A row as the table draws it: no bodies. */
export interface TrafficLine {
  n: number;
  seq: number;
  wallTime: number;
  direction: TrafficEvent['direction'];
  /** The kind of the event that opened the row (a request, a notification, an HTTP error...). */
  opener: TrafficEvent['kind'];
  answered: boolean;
  method?: string;
  /** The task it is about; for progress under a task filter, the task whose call sent its token. */
  taskId?: string;
  kind: TrafficRow['kind'];
  expected?: string;
  httpStatus?: number;
  rpcErrorCode?: number;
  bytes: number;
  latencyMs?: number;
}

/** The drawer's window, as the engine computed it for a request. */
export interface TrafficWindow {
  /** The filter and connection it answers: the page shows no rows of an older filter under a newer one. */
  filter: TrafficFilter;
  connectionId?: number;
  /** How many rows the filter lets through: the table's length. */
  filtered: number;
  /** The index of `lines[0]` among them. */
  start: number;
  lines: TrafficLine[];
  /** The methods the log holds, sorted (at most MAX_METHODS: the earliest come), when changed since the last window. */
  methods?: string[];
  /** The opened row whole when it changed; null when none is open or the ring let it go. */
  opened?: TrafficRow | null;
  /**
   * The row the page asked to open that this window answers: with `opened` null, the log no longer has it
   * (also when the ring let it go before it was ever sent).
   */
  asked?: number;
}

/** Lines a window carries at most, whatever the page asks: a tall screen holds a hundred. */
const MAX_WINDOW_ROWS = 1_000;
/** Progress rows held for a token no call has yet been seen to send: tokens, and rows per token. */
const MAX_AWAITING_TOKENS = 1_000;
const MAX_AWAITING_PER_TOKEN = 100;

export function lineOf(row: TrafficRow, taskId = row.taskId): TrafficLine {
  const { first } = row;
  return {
    n: row.n,
    seq: first.seq,
    wallTime: first.wallTime,
    direction: first.direction,
    opener: first.kind,
    answered: row.answer !== undefined,
    ...(row.method !== undefined ? { method: row.method } : {}),
    ...(taskId !== undefined ? { taskId } : {}),
    kind: row.kind,
    ...(row.expected !== undefined ? { expected: row.expected } : {}),
    ...(row.httpStatus !== undefined ? { httpStatus: row.httpStatus } : {}),
    ...(row.rpcErrorCode !== undefined ? { rpcErrorCode: row.rpcErrorCode } : {}),
    bytes: row.bytes,
    ...(row.latencyMs !== undefined ? { latencyMs: row.latencyMs } : {}),
  };
}

/** The position of n in the sorted ns[from..], or where it would go (negative: -(place) - 1). */
function search(ns: readonly number[], from: number, n: number): number {
  let lo = from;
  let hi = ns.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = ns[mid] ?? n;
    if (at === n) return mid;
    if (at < n) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}

/**
 * The drawer's window over the engine's log, with the filter's index kept as the log changes: new rows are
 * tested once as they come, a row that gets its answer again (its kind, task and body change), progress again
 * when a call's answer makes its token the task's, a row the ring lets go leaves the index from its front.
 * Only a new filter (or a cleared log) rebuilds it.
 */
export class TrafficWindowFeed implements RowWatcher {
  private request: TrafficWindowRequest | undefined;
  private by: RowFilter | undefined;
  /** The n of each row the filter lets through, ascending; ns[head] is the first. */
  private ns: number[] = [];
  private head = 0;
  /** The next row number to test: rows from it on are new to the index. */
  private scanned = 0;
  private generation = -1;
  /** Rows of the index the ring let go since the request: its `start` moves up by as many, keeping its rows. */
  private shift = 0;
  /** Rows paired since the last take, tested again then. */
  private readonly pairedNs = new Set<number>();
  /**
   * The n of progress rows left out for want of their token, by its key: when a call's answer makes the token
   * the task's, they are tested again (progress may come before the answer that names the task).
   */
  private awaiting = new BoundedLists<number>(MAX_AWAITING_TOKENS, MAX_AWAITING_PER_TOKEN);
  /**
   * Rows of the index by method. Every method of the rows indexed is counted, so that one listed or not comes
   * and goes with its rows; the ring's count cap bounds it (a row has one method).
   */
  private readonly methods = new Map<string, number>();
  private methodsChanged = true;
  /** The method list last sent. */
  private methodList: string[] | undefined;
  private sent: { filtered: number; start: number; rows: TrafficRow[] } | undefined;
  /**
   * The opened row last sent (null: none), kept apart from `sent`: a rebuild sends the window again, but not
   * the opened row (up to two bodies of 64 KB) unless it changed. Undefined: nothing sent yet.
   */
  private sentOpened: TrafficRow | null | undefined;
  /** The row asked to open that the last window answered. */
  private sentAsked: number | undefined;

  constructor(private readonly log: TrafficLog) {}

  get on(): boolean {
    return this.request !== undefined;
  }

  /** The page's request, or undefined when the drawer closed (the index is let go). */
  set(request: TrafficWindowRequest | undefined): void {
    const before = this.request;
    this.request = request;
    this.shift = 0;
    if (!request) {
      this.log.watcher = undefined;
      this.by = undefined;
      this.ns = [];
      this.head = 0;
      this.pairedNs.clear();
      this.methods.clear();
      this.methodList = undefined;
      this.awaiting = new BoundedLists<number>(MAX_AWAITING_TOKENS, MAX_AWAITING_PER_TOKEN);
      this.sent = undefined;
      this.sentOpened = undefined;
      this.sentAsked = undefined;
      return;
    }
    this.log.watcher = this;
    if (!before || !sameFilter(before.filter, request.filter) || before.connectionId !== request.connectionId)
      this.by = undefined;
  }

  paired(n: number): void {
    if (n < this.scanned) this.pairedNs.add(n);
  }

  dropped(row: TrafficRow): void {
    // A row the index never saw (come and gone between two takes) counts nowhere.
    if (row.n >= this.scanned) return;
    if (row.method !== undefined) this.countMethod(row.method, -1);
    if (this.ns[this.head] === row.n) {
      this.head++;
      this.shift++;
    }
  }

  /** The window for the current request, or undefined when it is the one last sent. */
  take(): TrafficWindow | undefined {
    const request = this.request;
    if (!request) return undefined;
    const rows = this.log.rows();
    const by = this.by && this.generation === this.log.generation ? this.by : this.rebuild(request);
    this.update(by, rows);
    const firstN = rows[0]?.n ?? 0;
    const rowOf = (n: number) => rows[n - firstN];
    const filtered = this.ns.length - this.head;
    const count = Math.max(0, Math.min(MAX_WINDOW_ROWS, request.count));
    const start = request.follow
      ? Math.max(0, filtered - count)
      : Math.max(0, Math.min(request.start - this.shift, filtered - count));
    const inView: TrafficRow[] = [];
    for (let i = this.head + start; i < Math.min(this.ns.length, this.head + start + count); i++) {
      const row = rowOf(this.ns[i] ?? -1);
      if (row) inView.push(row);
    }
    const opened = request.opened !== undefined ? (rowOf(request.opened) ?? null) : null;
    const openedChanged = this.sentOpened !== opened;
    const askedChanged = this.sentAsked !== request.opened;
    const sent = this.sent;
    const methods = this.methodsChanged ? this.listMethods() : undefined;
    this.methodsChanged = false;
    const same =
      sent !== undefined &&
      methods === undefined &&
      !openedChanged &&
      !askedChanged &&
      sent.filtered === filtered &&
      sent.start === start &&
      sent.rows.length === inView.length &&
      sent.rows.every((row, i) => row === inView[i]);
    if (same) return undefined;
    this.sent = { filtered, start, rows: inView };
    this.sentOpened = opened;
    this.sentAsked = request.opened;
    return {
      filter: request.filter,
      ...(request.connectionId !== undefined ? { connectionId: request.connectionId } : {}),
      filtered,
      start,
      lines: inView.map((row) => lineOf(row, by.taskOf(row))),
      ...(methods ? { methods } : {}),
      ...(openedChanged ? { opened } : {}),
      ...(request.opened !== undefined ? { asked: request.opened } : {}),
    };
  }

  private rebuild(request: TrafficWindowRequest): RowFilter {
    const by = new RowFilter(request.filter, request.connectionId);
    this.by = by;
    this.generation = this.log.generation;
    this.ns = [];
    this.head = 0;
    this.scanned = 0;
    this.shift = 0;
    this.pairedNs.clear();
    this.awaiting = new BoundedLists<number>(MAX_AWAITING_TOKENS, MAX_AWAITING_PER_TOKEN);
    this.methods.clear();
    this.methodList = undefined;
    this.methodsChanged = true;
    this.sent = undefined;
    return by;
  }

  /** Brings the index up to the log: rows paired since, then the new rows. */
  private update(by: RowFilter, rows: readonly TrafficRow[]): void {
    const firstN = rows[0]?.n ?? 0;
    const from = Math.max(this.scanned, firstN);
    const end = firstN + rows.length;
    // A pairing can make a row a task's (its answer names it), an error, or a search's.
    for (const n of this.pairedNs) {
      const row = rows[n - firstN];
      if (!row || n >= from) continue;
      this.learn(by, row, rows);
      this.retest(by, row);
    }
    this.pairedNs.clear();
    // Calls before the progress they lead to: every new row learnt, then tested.
    const added = rows.slice(from - firstN);
    for (const row of added) {
      this.learn(by, row, rows);
      if (row.method !== undefined) this.countMethod(row.method, 1);
    }
    for (const row of added) {
      if (by.matches(row)) this.ns.push(row.n);
      else {
        const key = by.awaitsToken(row);
        if (key !== undefined) this.awaiting.add(key, row.n);
      }
    }
    this.scanned = Math.max(this.scanned, end);
    // The index's front moves on as the ring lets rows go: copy down now and then, not per drop.
    if (this.head > 4096 && this.head * 2 > this.ns.length) {
      this.ns = this.ns.slice(this.head);
      this.head = 0;
    }
  }

  /** Learns the row's token; a new one brings in the progress already tested that named it. */
  private learn(by: RowFilter, row: TrafficRow, rows: readonly TrafficRow[]): void {
    const key = by.learn(row);
    if (key === undefined) return;
    const firstN = rows[0]?.n ?? 0;
    for (const n of this.awaiting.take(key)) {
      const progress = rows[n - firstN];
      if (progress && n < this.scanned) this.retest(by, progress);
    }
  }

  /** Tests a row of the index again: in or out, in its place. */
  private retest(by: RowFilter, row: TrafficRow): void {
    const at = search(this.ns, this.head, row.n);
    const matches = by.matches(row);
    if (matches && at < 0) this.ns.splice(-at - 1, 0, row.n);
    else if (!matches && at >= 0) this.ns.splice(at, 1);
  }

  private countMethod(method: string, by: number): void {
    const count = (this.methods.get(method) ?? 0) + by;
    if (count > 0) {
      if (!this.methods.has(method)) this.methodsChanged = true;
      this.methods.set(method, count);
    } else if (this.methods.delete(method)) this.methodsChanged = true;
  }

  /**
   * The method list, sorted: at most MAX_METHODS of the methods the rows hold, the earliest come of them (a
   * receiver inventing names does not push the usual ones out). Undefined when it is the one last sent.
   */
  private listMethods(): string[] | undefined {
    const list: string[] = [];
    for (const method of this.methods.keys()) {
      if (list.length === MAX_METHODS) break;
      list.push(method);
    }
    list.sort();
    const before = this.methodList;
    if (before && before.length === list.length && before.every((m, i) => m === list[i])) return undefined;
    this.methodList = list;
    return list;
  }
}
