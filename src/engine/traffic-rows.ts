import { MAX_LOGGED_MESSAGE_BYTES, relatedTaskId, type TrafficEvent } from '../mcp';
import { capMap, isObject } from '../mcp';

/** What the kind filter tells apart: a question (with its answer), a notification, or anything that failed. */
export type RowKind = 'request' | 'notification' | 'error' | 'auth';

/**
 * One line of the panel, as a browser's network panel has it: a request and its answer together, or a
 * notification (or an answer whose question the log no longer has) alone.
 */
export interface TrafficRow {
  /** Grows with every row since the page loaded, across clears: rows are sorted by it, and keyed by it. */
  n: number;
  /** The event that opened the row: a request, a notification, or a lone answer. */
  first: TrafficEvent;
  answer?: TrafficEvent;
  method?: string;
  taskId?: string;
  kind: RowKind;
  /**
   * A failure the protocol expects, said in words: the detection's refused server/discover, a -32602 for a
   * task the receiver no longer has. Listed as a request, so the errors filter keeps to what went wrong.
   */
  expected?: string;
  httpStatus?: number;
  rpcErrorCode?: number;
  /** Both messages' sizes on the wire. */
  bytes: number;
  latencyMs?: number;
  /** What the row holds in memory, by the log's estimate: what the byte cap counts. */
  cost: number;
}

/** The log keeps this much at most, whichever is reached first: the sum of messages' sizes, and their count. */
export const TRAFFIC_BYTE_CAP = 16 * 1024 * 1024;
export const TRAFFIC_COUNT_CAP = 20_000;
/** Requests waiting for their answer that the log remembers; an answer to one forgotten gets a row of its own. */
const MAX_AWAITED = 5_000;
/** A JS object's own overhead, roughly: a log of tiny messages is bounded by the count cap anyway. */
const EVENT_OVERHEAD = 256;

const asObject = (value: unknown) => (isObject(value) ? value : undefined);
const asString = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** The task a message is about: params.taskId, the task an answer names, or the related-task `_meta`. */
export function taskIdOf(message: unknown): string | undefined {
  const m = asObject(message);
  if (!m) return undefined;
  const params = asObject(m.params);
  const result = asObject(m.result);
  return (
    asString(params?.taskId) ??
    relatedTaskId(params) ??
    asString(result?.taskId) ??
    asString(asObject(result?.task)?.taskId) ??
    relatedTaskId(result) ??
    relatedTaskId(asObject(asObject(m.error)?.data))
  );
}

function rpcErrorCode(event: TrafficEvent | undefined): number | undefined {
  const code = asObject(asObject(event?.message)?.error)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** What an event holds in memory, by its JSON size: a body too large to keep was replaced by a short note. */
export function eventCost(event: TrafficEvent): number {
  const body = event.bytes >= 0 && event.bytes <= MAX_LOGGED_MESSAGE_BYTES ? event.bytes : 128;
  let headers = 0;
  if (event.http) {
    for (const [name, value] of Object.entries(event.http.requestHeaders))
      headers += name.length + value.length;
    for (const [name, value] of Object.entries(event.http.responseHeaders))
      headers += name.length + value.length;
    headers += event.http.url.length;
  }
  return EVENT_OVERHEAD + body + headers;
}

/** Task methods whose -32602 means the receiver does not have the task (any more): how purges are said. */
const TASK_METHODS = new Set(['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/update']);

function expectedFailure(method: string | undefined, code: number | undefined): string | undefined {
  if (method === 'server/discover')
    return 'Expected: a receiver that does not speak 2026-07-28 refuses server/discover, and Taskscope then sends initialize.';
  if (code === -32602 && method !== undefined && TASK_METHODS.has(method))
    return 'Expected: -32602 is how a receiver says it no longer has this task (purged after its ttl, or never known).';
  return undefined;
}

function buildRow(n: number, first: TrafficEvent, answer?: TrafficEvent): TrafficRow {
  const code = rpcErrorCode(answer) ?? rpcErrorCode(first);
  const failed = [first.kind, answer?.kind].some((k) => k === 'error' || k === 'http-error');
  const method = first.method ?? answer?.method;
  const expected = failed ? expectedFailure(method, code) : undefined;
  return {
    n,
    first,
    answer,
    method,
    taskId: taskIdOf(first.message) ?? (answer ? taskIdOf(answer.message) : undefined),
    kind:
      first.kind === 'auth'
        ? 'auth'
        : failed && !expected
          ? 'error'
          : first.kind === 'notification'
            ? 'notification'
            : 'request',
    ...(expected ? { expected } : {}),
    httpStatus: answer?.httpStatus ?? first.httpStatus,
    rpcErrorCode: code,
    bytes: Math.max(0, first.bytes) + Math.max(0, answer?.bytes ?? 0),
    latencyMs: answer?.latencyMs,
    cost: eventCost(first) + (answer ? eventCost(answer) : 0),
  };
}

export interface TrafficLogState {
  rows: TrafficRow[];
  /** Everything seen since the page loaded (or the last clear), including what the ring has dropped. */
  total: number;
  /** Events the rows hold (a paired row holds two). */
  kept: number;
  /** The rows' cost, kept at or below TRAFFIC_BYTE_CAP. */
  bytes: number;
  nextN: number;
  /** Request (connection and seq, awaitKey) → row n, for requests still waiting for their answer. */
  awaited: Map<string, number>;
}

/**
 * An empty log whose rows are numbered from nextN: after a clear, on from the cleared log's, so that a row's n
 * the page kept across the clear (the opened one) never names a row of the new log.
 */
export const emptyLog = (nextN = 1): TrafficLogState => ({
  rows: [],
  total: 0,
  kept: 0,
  bytes: 0,
  nextN,
  awaited: new Map(),
});

/** The row (or line) with number n, by binary search (sorted by n); -1 when the ring has let it go. */
export function indexOfRow(rows: readonly { n: number }[], n: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = rows[mid]?.n ?? n;
    if (at === n) return mid;
    if (at < n) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Seqs pair only within one connection: another connection's request with the same seq is not this answer's. */
const awaitKey = (connectionId: number | undefined, seq: number) => `${connectionId ?? '-'}:${seq}`;

/** Told of each change to existing rows, as addEvents makes it: what an index over the log must redo. */
export interface RowWatcher {
  /** The row numbered n got its answer (a new row object in its place). */
  paired(n: number): void;
  /** The ring let the row go (oldest first). */
  dropped(row: TrafficRow): void;
}

/**
 * The log with `incoming` added: each answer joins its request's row (the tap paired them by requestSeq),
 * anything else opens a row. Then the oldest rows go until both caps hold. Returns a new state; the old one
 * is left as it was (the awaited map is the one mutable part, shared by design: only the newest state uses it).
 */
export function addEvents(
  state: TrafficLogState,
  incoming: readonly TrafficEvent[],
  dropped = 0,
  caps: { bytes: number; count: number } = { bytes: TRAFFIC_BYTE_CAP, count: TRAFFIC_COUNT_CAP },
  /** Change `state.rows` itself instead of a copy: for a log nothing else holds (the engine's). */
  inPlace = false,
  watcher?: RowWatcher,
): TrafficLogState {
  if (incoming.length === 0 && dropped === 0) return state;
  const rows = inPlace ? state.rows : state.rows.slice();
  const awaited = state.awaited;
  let { nextN, bytes, kept } = state;
  for (const event of incoming) {
    const { requestSeq } = event;
    const key = requestSeq !== undefined ? awaitKey(event.connectionId, requestSeq) : undefined;
    const awaitedN = key !== undefined ? awaited.get(key) : undefined;
    const at = awaitedN !== undefined ? indexOfRow(rows, awaitedN) : -1;
    const before = rows[at];
    if (key !== undefined && before) {
      awaited.delete(key);
      const row = buildRow(before.n, before.first, event);
      rows[at] = row;
      watcher?.paired(row.n);
      bytes += row.cost - before.cost;
      kept += 1;
      continue;
    }
    const row = buildRow(nextN++, event);
    rows.push(row);
    bytes += row.cost;
    kept += 1;
    if (event.kind === 'request') {
      awaited.set(awaitKey(event.connectionId, event.seq), row.n);
      capMap(awaited, MAX_AWAITED);
    }
  }
  let drop = 0;
  for (let row = rows[0]; row && (bytes > caps.bytes || kept > caps.count); row = rows[++drop]) {
    bytes -= row.cost;
    kept -= row.answer ? 2 : 1;
    if (!row.answer) awaited.delete(awaitKey(row.first.connectionId, row.first.seq));
    watcher?.dropped(row);
  }
  if (drop > 0) rows.splice(0, drop);
  return { rows, awaited, nextN, bytes, kept, total: state.total + incoming.length + dropped };
}

/** The events the rows hold (of one connection, when given), in the order they happened. */
export function eventsOf(rows: readonly TrafficRow[], connectionId?: number): TrafficEvent[] {
  const events: TrafficEvent[] = [];
  for (const row of rows) {
    if (connectionId !== undefined && row.first.connectionId !== connectionId) continue;
    events.push(row.first);
    if (row.answer) events.push(row.answer);
  }
  return events.sort((a, b) => a.seq - b.seq);
}

/** What the page shows of the log while it does not hold its rows (always but for the report card's mirror). */
export interface TrafficCounts {
  total: number;
  kept: number;
  /** Rows the log holds; `kept` above it means some hold an answer (an HTTP exchange to export). */
  rows: number;
}
