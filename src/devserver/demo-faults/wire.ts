/**
 * The plumbing of the demo's faults receiver (and of the test-only hostile receiver built on it): task shapes,
 * per-case state and counts, held-open requests and streams, and small wire helpers. The faults case is in
 * faults.ts, the request handling in handler.ts.
 */
import { type IncomingMessage, type ServerResponse } from 'node:http';

export interface TaskGetCount {
  count: number;
  /** Date.now() at each arrival (the first 10,000), so a test can check the gaps. */
  at: number[];
}

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export interface WireTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
}

export type Id = string | number;

export const PROTOCOL_VERSION = '2025-11-25';
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';
export const PAGE_SIZE = 100;
export const TTL_MS = 600_000;
export const POLL_MS = 1000;
export const STREAM_PING_MS = 15_000;
export const BODY_LIMIT = 1024 * 1024;
export const MAX_TRACKED_IDS = 50_000;
export const MAX_ARRIVALS = 10_000;

export const TERMINAL = new Set<TaskStatus>(['completed', 'failed', 'cancelled']);
export const CORS_ALLOW_HEADERS =
  'content-type, mcp-session-id, mcp-protocol-version, authorization, last-event-id, accept';
// Retry-After too: it is not a CORS-safelisted response header, so without it a page never sees the hint.
export const CORS_EXPOSE_HEADERS = 'Mcp-Session-Id, MCP-Protocol-Version, Retry-After';

// ---------------------------------------------------------------------------------------------------------
// State per case.

export interface Counter {
  methods: Map<string, number>;
  GET: number;
  POST: number;
  DELETE: number;
  OPTIONS: number;
  responses: number;
  tasksGet: Map<string, TaskGetCount>;
  tasksGetUntracked: number;
  notificationsSent: number;
  elicitationsSent: number;
}

export const newCounter = (): Counter => ({
  methods: new Map(),
  GET: 0,
  POST: 0,
  DELETE: 0,
  OPTIONS: 0,
  responses: 0,
  tasksGet: new Map(),
  tasksGetUntracked: 0,
  notificationsSent: 0,
  elicitationsSent: 0,
});

export interface CaseState {
  /** A case's name: `faults?a,b` for the faults case (faults.ts) with those faults. */
  name: string;
  description: string;
  spec: CaseSpec;
  /** Listed tasks in creation order, and every task by id (listed, created, or generated then changed). */
  listed: WireTask[];
  byId: Map<string, WireTask>;
  resetAt: number;
  counter: Counter;
  open: number;
  /** tasks/result requests blocked on a live task, answered when it is cancelled. */
  waiters: Map<string, Set<Held>>;
  created: number;
}

export interface Rpc {
  c: CaseState;
  res: ServerResponse;
  id: Id;
  params: Record<string, unknown>;
}

export interface CaseSpec {
  /** Tasks the case starts with (and lists), created at reset time `at`. */
  seed(at: number): WireTask[];
  /** pollInterval of tasks made by tools/call. */
  newTaskPollInterval?: number;
  /** Tasks the case knows without storing them (made up from the id). */
  virtualTask?(c: CaseState, taskId: string): WireTask | undefined;
  /** Answers tasks/list itself. */
  list?(rpc: Rpc, cursor: string | undefined): void;
  /** Answers tasks/get itself; `task` is what the default would answer (undefined: unknown id). */
  get?(rpc: Rpc, task: WireTask | undefined): void;
  /** Answers tasks/result on a known task itself; false: leave it to the default. */
  result?(rpc: Rpc, task: WireTask): boolean;
  /** Answers the GET stream itself. */
  stream?(c: CaseState, res: ServerResponse): void;
  /** Runs on each default GET stream once it is open. */
  onStreamOpen?(c: CaseState, held: Held): void;
  /** The tools tools/list gives (the default: one task-required `job` that works for ever). */
  tools?(): unknown[];
  /** Answers tools/call itself. */
  call?(rpc: Rpc): void;
  /** Answers tasks/cancel itself. */
  cancel?(rpc: Rpc): void;
  /** The `tasks` capability initialize declares (the default: list, cancel and task-augmented tools/call). */
  tasksCapability?: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------------------
// Held-open requests and streams.

/** A response kept open: its timers stop when it ends, by the client going away or by close(). */
export class Held {
  ended = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly registry: Set<Held>,
    readonly c: CaseState,
    readonly res: ServerResponse,
    private readonly onEnd?: () => void,
    /** The JSON-RPC id of a held request, to answer it later. */
    readonly requestId: Id | null = null,
  ) {
    registry.add(this);
    c.open++;
    res.on('close', () => this.end());
  }

  /** Runs `fn` every `ms` while held; `fn` returning false stops it. */
  every(ms: number, fn: () => unknown): void {
    const timer = setInterval(() => {
      if (this.ended || fn() === false) {
        clearInterval(timer);
        this.timers.delete(timer);
      }
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  write(chunk: string | Buffer): void {
    if (!this.ended && !this.res.destroyed) this.res.write(chunk);
  }

  /** Answers and stops holding. */
  answer(status: number, body: unknown): void {
    if (this.ended) return;
    this.release();
    if (!this.res.headersSent) sendJson(this.res, status, body);
    else this.res.end();
  }

  end(): void {
    if (this.ended) return;
    this.release();
    if (this.res.writableEnded || this.res.destroyed) return;
    // A stream ends cleanly; a request never answered has nothing to end with, so its socket goes.
    if (this.res.headersSent) this.res.end();
    else this.res.destroy();
  }

  private release(): void {
    this.ended = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers.clear();
    this.registry.delete(this);
    this.c.open--;
    this.onEnd?.();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Wire helpers.

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Sends a body made of parts (strings and prebuilt Buffers), so big payloads are never copied. */
export function sendParts(res: ServerResponse, parts: (string | Buffer)[]) {
  const length = parts.reduce((n, p) => n + (typeof p === 'string' ? Buffer.byteLength(p) : p.length), 0);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': length });
  for (const part of parts) res.write(part);
  res.end();
}

export const result = (
  res: ServerResponse,
  id: Id | null,
  value: unknown,
  headers?: Record<string, string>,
) => sendJson(res, 200, { jsonrpc: '2.0', id, result: value }, headers);

export const rpcError = (res: ServerResponse, id: Id | null, code: number, message: string, data?: unknown) =>
  sendJson(res, 200, {
    jsonrpc: '2.0',
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  });

export function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
  });
  res.flushHeaders();
}

export const sseMessage = (eventId: string | number, message: unknown) =>
  `event: message\nid: ${eventId}\ndata: ${JSON.stringify(message)}\n\n`;

/** The body as text, or null when it is over the limit (drained, not kept). */
export function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > BODY_LIMIT ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const isId = (v: unknown): v is Id =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

// ---------------------------------------------------------------------------------------------------------
// Tasks.

export function makeTask(taskId: string, at: number, over: Partial<WireTask> = {}): WireTask {
  const iso = new Date(at).toISOString();
  return {
    taskId,
    status: 'working',
    createdAt: iso,
    lastUpdatedAt: iso,
    ttl: TTL_MS,
    pollInterval: POLL_MS,
    ...over,
  };
}

export const relatedMeta = (taskId: string) => ({ [RELATED_TASK]: { taskId } });

export function lookup(c: CaseState, taskId: string): WireTask | undefined {
  return c.byId.get(taskId) ?? c.spec.virtualTask?.(c, taskId);
}

export function defaultList(rpc: Rpc, cursor: string | undefined): void {
  const { c, res, id } = rpc;
  let offset = 0;
  if (cursor !== undefined) {
    const match = /^o(\d+)$/.exec(cursor);
    if (!match) return rpcError(res, id, -32602, `Invalid cursor: ${cursor.slice(0, 100)}`);
    offset = Number(match[1]);
  }
  const tasks = c.listed.slice(offset, offset + PAGE_SIZE);
  const next = offset + PAGE_SIZE;
  result(res, id, next < c.listed.length ? { tasks, nextCursor: `o${next}` } : { tasks });
}
