/**
 * A HAR 1.2 file (http://www.softwareishard.com/blog/har-12-spec/) of the HTTP exchanges in a trace, for the
 * network panels of browsers and other HAR viewers. Built from the trace, so it is redacted exactly as the
 * trace is.
 *
 * One entry per HTTP exchange Taskscope made: a POST carrying one JSON-RPC message and its answer. Where the
 * traffic tap recorded the exchange's HTTP facts (event.http), they are used as they are; for older traffic
 * the entry is rebuilt from the request event and its answer (requestSeq, latencyMs), with the headers
 * Taskscope sends on every POST, and it says so in its comment.
 *
 * Left out: what the receiver streamed to us (notifications, its own requests) on the long-lived GET stream or
 * inside a POST's event-stream answer. A HAR entry is one request and one response, and a stream that stays open
 * for minutes is neither; the trace file keeps every one of those messages with its time.
 */
import { isOmittedBody, type TrafficEvent } from '../mcp';
import type { Trace } from '../engine/trace/schema';

export interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: [];
    headers: HarHeader[];
    queryString: HarHeader[];
    postData?: { mimeType: string; text: string };
    headersSize: -1;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: [];
    headers: HarHeader[];
    content: { size: number; mimeType: string; text?: string; comment?: string };
    redirectURL: '';
    headersSize: -1;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment?: string;
  /** Custom fields start with an underscore (HAR 1.2): the JSON-RPC message the exchange carried. */
  _jsonrpc?: { method?: string; id?: string | number; kind: string };
}

export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    entries: HarEntry[];
    comment?: string;
  };
}

/** Taskscope's own version in the creator field; the trace format has its own. */
const CREATOR = { name: 'Taskscope', version: '0.1.0' };

/** What the SDK's transport sends on every POST, whatever the receiver. */
const POST_HEADERS: HarHeader[] = [
  { name: 'content-type', value: 'application/json' },
  { name: 'accept', value: 'application/json, text/event-stream' },
];

const encoder = new TextEncoder();
const byteLength = (text: string) => encoder.encode(text).length;
const round = (ms: number) => Math.max(0, Math.round(ms * 1000) / 1000);

function headerList(headers: Record<string, string>): HarHeader[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

function queryString(url: string): HarHeader[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

function bodyText(message: unknown): string {
  try {
    return JSON.stringify(message) ?? '';
  } catch {
    return '';
  }
}

function entryFor(
  trace: Trace,
  request: TrafficEvent | undefined,
  answer: TrafficEvent | undefined,
): HarEntry | undefined {
  const facts = answer?.http ?? request?.http;
  if (!facts && !(request && answer)) return undefined;
  const notes: string[] = [];
  const url = facts?.url ?? trace.receiver.url;
  const startedAt = facts?.wallStartedAt ?? request?.wallTime ?? answer?.wallTime ?? 0;
  // latencyMs runs from sending to the answer read whole; waitMs to the answer's headers; the rest is receiving.
  const total = Math.max(0, answer?.latencyMs ?? facts?.waitMs ?? 0);
  const wait = facts ? Math.min(Math.max(0, facts.waitMs), total) : total;
  const receive = total - wait;

  let requestHeaders: HarHeader[];
  if (facts) requestHeaders = headerList(facts.requestHeaders);
  else {
    requestHeaders = [...POST_HEADERS, ...headerList(trace.receiver.headers ?? {})];
    notes.push("rebuilt from Taskscope's JSON-RPC log: response headers and HTTP version unknown");
  }

  const postText = request ? bodyText(request.message) : undefined;
  if (request && isOmittedBody(request.message)) notes.push(`request body not kept (${request.bytes} bytes)`);

  const status = facts?.status ?? answer?.httpStatus ?? 200;
  const responseHeaders = facts ? headerList(facts.responseHeaders) : [];
  const contentType =
    responseHeaders.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? 'application/json';
  const stream = contentType.includes('text/event-stream');
  // An HTTP error's event keeps the body the receiver sent (cut to 2,000 characters) as text: shown as it came.
  const errorBody =
    answer?.kind === 'http-error' && typeof answer.message === 'object' && answer.message !== null
      ? (answer.message as { body?: unknown }).body
      : undefined;
  const answerText = typeof errorBody === 'string' ? errorBody : answer ? bodyText(answer.message) : '';
  if (answer && isOmittedBody(answer.message)) notes.push(`response body not kept (${answer.bytes} bytes)`);
  const content: HarEntry['response']['content'] = {
    size: typeof errorBody === 'string' ? byteLength(errorBody) : answer ? Math.max(0, answer.bytes) : 0,
    mimeType: stream ? 'application/json' : contentType,
    text: answerText,
  };
  if (stream) content.comment = 'the JSON-RPC answer the event stream carried';

  const message = request ?? answer;
  const entry: HarEntry = {
    startedDateTime: new Date(startedAt).toISOString(),
    time: round(wait) + round(receive),
    request: {
      method: facts?.method ?? 'POST',
      url,
      httpVersion: '',
      cookies: [],
      headers: requestHeaders,
      queryString: queryString(url),
      ...(postText !== undefined ? { postData: { mimeType: 'application/json', text: postText } } : {}),
      headersSize: -1,
      bodySize: postText !== undefined ? byteLength(postText) : 0,
    },
    response: {
      status,
      statusText: '',
      httpVersion: '',
      cookies: [],
      headers: responseHeaders,
      content,
      redirectURL: '',
      headersSize: -1,
      bodySize: content.size,
    },
    cache: {},
    timings: { send: 0, wait: round(wait), receive: round(receive) },
    _jsonrpc: { method: message?.method, id: message?.id, kind: message?.kind ?? 'unknown' },
  };
  if (notes.length > 0) entry.comment = notes.join('; ');
  return entry;
}

export function buildHar(trace: Trace): Har {
  const bySeq = new Map<number, TrafficEvent>();
  for (const event of trace.traffic) if (event.direction === 'out') bySeq.set(event.seq, event);
  const entries: HarEntry[] = [];
  for (const event of trace.traffic) {
    let entry: HarEntry | undefined;
    if (event.direction === 'in' && event.kind !== 'request' && event.kind !== 'notification') {
      // An answer (or an HTTP error) to one of our POSTs.
      const request = event.requestSeq !== undefined ? bySeq.get(event.requestSeq) : undefined;
      entry = entryFor(trace, request, event);
    } else if (event.direction === 'out' && event.kind !== 'request' && event.http) {
      // A notification or an answer to the receiver: its POST is answered 202 with no body of its own.
      entry = entryFor(trace, event, undefined);
    }
    if (entry) entries.push(entry);
  }
  entries.sort((a, b) => a.startedDateTime.localeCompare(b.startedDateTime));
  return {
    log: {
      version: '1.2',
      creator: CREATOR,
      entries,
      comment: `MCP receiver ${trace.receiver.url}, exported by Taskscope at ${trace.exportedAt}`,
    },
  };
}
