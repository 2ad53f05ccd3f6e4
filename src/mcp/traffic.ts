import { capMap } from './bounded-lists';
import { limitJson } from './json';
export type TrafficDirection = 'out' | 'in';
/** auth: one HTTP exchange of a sign-in (metadata, registration, token), its secrets redacted. */
export type TrafficKind = 'request' | 'response' | 'error' | 'notification' | 'http-error' | 'auth';

/**
 * The HTTP exchange that carried a request and its answer, set on the answer's event (a POST's facts are known
 * only once it is answered). Header values that carry secrets are redacted before they reach the tap.
 */
export interface HttpFacts {
  method: string;
  /** The receiver's URL (not the relay's, when the relay carried it). */
  url: string;
  requestHeaders: Record<string, string>;
  status: number;
  responseHeaders: Record<string, string>;
  /** Wall-clock ms the request was sent, and how long until the answer's headers came. */
  wallStartedAt: number;
  waitMs: number;
}

export interface TrafficEvent {
  /** Unique within one engine across its connections (a page's log holds several). */
  seq: number;
  /**
   * The page's connection (or replay) the event belongs to, set where the engine hands it to the page: seqs
   * pair a request with its answer only within one connection.
   */
  connectionId?: number;
  /** Monotonic ms (performance.now()): for ordering and latency, immune to wall-clock jumps. */
  at: number;
  /** Wall-clock ms, for display. */
  wallTime: number;
  direction: TrafficDirection;
  kind: TrafficKind;
  method?: string;
  id?: string | number;
  httpStatus?: number;
  bytes: number;
  /** For a response: the request's seq and how long the answer took. */
  requestSeq?: number;
  latencyMs?: number;
  http?: HttpFacts;
  message: unknown;
}

export interface TrafficSeqCounter {
  last: number;
}

export type TrafficListener = (event: TrafficEvent) => void;

/** Messages larger than this are logged without their body: a thousand 3 MB results would fill the tab. */
export const MAX_LOGGED_MESSAGE_BYTES = 64 * 1024;

/**
 * Events forTrafficLog made (or found fit): the engine's log and history both ask for the same event, and a
 * body is walked once, not once per keeper (bench:ui profile).
 */
const fitForLog = new WeakSet<TrafficEvent>();

/** The event as a log keeps it: an oversized body is replaced by a note of its size. */
export function forTrafficLog(event: TrafficEvent): TrafficEvent {
  if (fitForLog.has(event)) return event;
  const fit = fitted(event);
  fitForLog.add(fit);
  return fit;
}

function fitted(event: TrafficEvent): TrafficEvent {
  if (event.bytes < 0) return { ...event, message: { omitted: 'too deeply nested to write out as JSON' } };
  if (event.bytes > MAX_LOGGED_MESSAGE_BYTES)
    return { ...event, message: { omitted: `${event.bytes} bytes, too large to keep in the log` } };
  // Kept bodies still cross to the page and into a tree view: no deeper than either can follow.
  const limited = limitJson(event.message, { maxDepth: 64, maxNodes: 20_000 });
  return limited.cut ? { ...event, message: limited.value } : event;
}

/**
 * Whether a log's message is the note forTrafficLog put in place of a body it did not keep: `{ omitted: string }`
 * and nothing else. A JSON-RPC message always has more keys (jsonrpc at least), so a receiver cannot pass its
 * own message off as cut by adding an `omitted` key.
 */
export function isOmittedBody(message: unknown): message is { omitted: string } {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const keys = Object.keys(message);
  return (
    keys.length === 1 &&
    keys[0] === 'omitted' &&
    typeof (message as { omitted: unknown }).omitted === 'string'
  );
}

/** How many unanswered requests the tap remembers for pairing; older ones are dropped, never kept for ever. */
const MAX_PENDING = 5_000;

const BEYOND_ASCII = /[\u0080-\uffff]/;

/**
 * The length `text` has as UTF-8 (what TextEncoder would make of it, a lone surrogate as U+FFFD), counted
 * rather than encoded: every message of every poll is measured, and encoding it only to read the length made
 * a buffer per message (bench:ui profile).
 */
export function utf8Length(text: string): number {
  // Nearly every message is ASCII, one byte a character: the native scan settles it without a loop.
  if (!BEYOND_ASCII.test(text)) return text.length;
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code <= 0xdbff && code >= 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: two code units, four bytes.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/** The message's size as JSON, or -1 when it cannot even be written out (nested too deep, cyclic). */
function byteSize(message: unknown): number {
  try {
    const json = JSON.stringify(message);
    return json === undefined ? 0 : utf8Length(json);
  } catch {
    return -1;
  }
}

function describe(message: unknown): { kind: TrafficKind; method?: string; id?: string | number } {
  const m = (typeof message === 'object' && message !== null ? message : {}) as Record<string, unknown>;
  const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
  const method = typeof m.method === 'string' ? m.method : undefined;
  if (method !== undefined) return { kind: id === undefined ? 'notification' : 'request', method, id };
  return { kind: 'error' in m ? 'error' : 'response', id };
}

/**
 * Sees every JSON-RPC message of one connection. It pairs answers with questions for latency and hands each
 * event to subscribers; keeping a history is the subscribers' business (a bounded ring in the UI).
 */
export class TrafficTap {
  /**
   * The last seq handed out. Shared by the taps of one engine, so seqs never repeat across its connections;
   * restored traffic moves it on (src/engine/history/link.ts).
   */
  readonly counter: TrafficSeqCounter;
  private readonly listeners = new Set<TrafficListener>();
  /** Keyed by direction + id: our request ids and the receiver's are separate spaces. */
  private readonly pending = new Map<string, { seq: number; at: number; method?: string }>();
  /** HTTP status of the POST that carried each of our request ids, so SSE answers get it too. */
  private readonly httpStatusById = new Map<string | number, number>();
  /** The HTTP exchange that carried each of our request ids, for the answer's event (streamed answers come later). */
  private readonly httpById = new Map<string | number, HttpFacts>();

  /** `seqs`: the engine's counter, shared with its other taps; a number starts a counter of this tap's own. */
  constructor(
    private readonly now: () => number = () => performance.now(),
    seqs: TrafficSeqCounter | number = 0,
  ) {
    this.counter = typeof seqs === 'number' ? { last: seqs } : seqs;
  }

  subscribe(listener: TrafficListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called by the fetch wrapper once the HTTP status of a POST is known. */
  noteHttpStatus(ids: Array<string | number>, status: number): void {
    for (const id of ids) {
      this.httpStatusById.set(id, status);
      capMap(this.httpStatusById, MAX_PENDING);
    }
  }

  /** Called by the fetch wrapper once a POST's answer headers came: its facts go on each answer's event. */
  noteHttp(ids: Array<string | number>, facts: HttpFacts): void {
    for (const id of ids) {
      this.httpById.set(id, facts);
      capMap(this.httpById, MAX_PENDING);
    }
  }

  /**
   * `inReplyTo`: the id of our request this message answers when it carries none itself (a POST refused
   * with an HTTP error), so it pairs with that request like a JSON-RPC answer.
   */
  record(
    direction: TrafficDirection,
    message: unknown,
    extra: {
      httpStatus?: number;
      kind?: TrafficKind;
      http?: HttpFacts;
      inReplyTo?: string | number;
    } = {},
  ): TrafficEvent {
    const described = describe(message);
    const { kind, method } = described;
    const id = described.id ?? extra.inReplyTo;
    const at = this.now();
    const event: TrafficEvent = {
      seq: ++this.counter.last,
      at,
      wallTime: Date.now(),
      direction,
      kind: extra.kind ?? kind,
      method,
      id,
      bytes: byteSize(message),
      httpStatus: extra.httpStatus,
      http: extra.http,
      message,
    };
    if (id !== undefined) {
      if (kind === 'request') {
        this.pending.set(`${direction}:${id}`, { seq: event.seq, at, method });
        capMap(this.pending, MAX_PENDING);
      } else {
        // An answer travels the other way from its question.
        const key = `${direction === 'in' ? 'out' : 'in'}:${id}`;
        const request = this.pending.get(key);
        if (request) {
          this.pending.delete(key);
          event.requestSeq = request.seq;
          event.latencyMs = at - request.at;
          event.method = request.method;
        }
        if (direction === 'in' && event.httpStatus === undefined) {
          event.httpStatus = this.httpStatusById.get(id);
          this.httpStatusById.delete(id);
        }
        if (direction === 'in') {
          event.http ??= this.httpById.get(id);
          this.httpById.delete(id);
        }
      }
    }
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A failing subscriber must not break the connection it observes.
      }
    }
    return event;
  }
}
