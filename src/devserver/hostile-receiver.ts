/**
 * A receiver that misbehaves on purpose, for tests, benches and demos (issue #9): plain `node:http`, no SDK,
 * MCP 2025-11-25 tasks over Streamable HTTP. One misbehaviour per **case**, each at its own path
 * `/<case>/mcp` on one server, so a test run starts it once. Everything not named by a case follows the
 * protocol: CORS for loopback origins, initialize, tools/list (one tool `job`, taskSupport required),
 * task-augmented tools/call, tasks/list (100 a page), tasks/get, tasks/result (blocks while the task runs),
 * tasks/cancel, a GET notification stream with `: ping` every 15 s, DELETE.
 *
 * Every timer belongs to a held-open request or stream and stops with it; `close()` ends them all.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './http-server.js';

export const CASE_NAMES = [
  'huge-interval',
  'retry-after-http',
  'retry-after-rpc',
  'sse-retry-zero',
  'deep-result',
  'huge-status',
  'notification-flood',
  'endless-list',
  'huge-list',
  'silent-get',
  'endless-sse-answer',
  'wrong-id',
  'future-created',
  'ttl-absurd',
  'elicitation-flood',
  'wide-elicitation',
] as const;

export type CaseName = (typeof CASE_NAMES)[number];

export interface TaskGetCount {
  count: number;
  /** Date.now() at each arrival (the first 10,000), so a test can check the gaps. */
  at: number[];
}

export interface CaseCounts {
  /** JSON-RPC requests and notifications the client POSTed, by method. */
  methods: Record<string, number>;
  /** GET requests for the notification stream (stream opens). */
  GET: number;
  POST: number;
  DELETE: number;
  /** CORS preflights. */
  OPTIONS: number;
  /** JSON-RPC responses the client POSTed (its answers to elicitation/create). */
  responses: number;
  /** tasks/get per taskId (the first 50,000 distinct ids). */
  tasksGet: Record<string, TaskGetCount>;
  /** tasks/get for ids beyond the first 50,000 distinct ones: counted, not itemised. */
  tasksGetUntracked: number;
  /** notifications/tasks/status written to GET streams. */
  notificationsSent: number;
  /** elicitation/create requests written to tasks/result streams. */
  elicitationsSent: number;
  /** Requests and streams of this case held open right now. */
  open: number;
}

export interface HostileReceiver {
  /** Base URL, e.g. http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  /** The MCP endpoint of a case: `${url}/<case>/mcp`. */
  caseUrl(name: CaseName): string;
  counts(name: CaseName): CaseCounts;
  /** Clears the counts and recreates the tasks of one case, or of every case. */
  reset(name?: CaseName): void;
  /** Ends every held-open request and stream, stops every timer, closes the server. */
  close(): Promise<void>;
}

type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

interface WireTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
}

type Id = string | number;

const PROTOCOL_VERSION = '2025-11-25';
const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const PAGE_SIZE = 100;
const TTL_MS = 600_000;
const POLL_MS = 1000;
const STREAM_PING_MS = 15_000;
const BODY_LIMIT = 1024 * 1024;
const MAX_TRACKED_IDS = 50_000;
const MAX_ARRIVALS = 10_000;
const DAY_MS = 24 * 60 * 60 * 1000;

const FLOOD_PER_SECOND = 2000;
const FLOOD_TICK_MS = 10;
const FLOOD_FOR_MS = 10_000;
const FLOOD_KNOWN_SHARE = 0.1;
const HUGE_STATUS_BYTES = 20 * 1024 * 1024;
const DEEP_LEVELS = 100_000;
const ELICITATIONS = 1000;
const WIDE_PROPERTIES = 10_000;
const HUGE_LIST_SIZE = 20_000;
const RETRY_AFTER_SECONDS = 4000;
const RETRY_AFTER_MS = 4_000_000;

const TERMINAL = new Set<TaskStatus>(['completed', 'failed', 'cancelled']);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

const CORS_ALLOW_HEADERS =
  'content-type, mcp-session-id, mcp-protocol-version, authorization, last-event-id, accept';
// Retry-After too: it is not a CORS-safelisted response header, so without it a page never sees the hint.
const CORS_EXPOSE_HEADERS = 'Mcp-Session-Id, MCP-Protocol-Version, Retry-After';

/** What each case does, for the initialize instructions and the case list. */
export const CASE_DESCRIPTIONS: Record<CaseName, string> = {
  'huge-interval': 'two working tasks with pollInterval 1e12 ms and 2^31 ms (past setTimeout’s limit)',
  'retry-after-http': `tasks/get answers HTTP 429 with Retry-After: ${RETRY_AFTER_SECONDS} (seconds) and a JSON-RPC error body`,
  'retry-after-rpc': `tasks/get answers JSON-RPC -32429 Too Many Requests with data.retryAfterMs ${RETRY_AFTER_MS}`,
  'sse-retry-zero': 'the GET stream answers `retry: 0` and closes at once, every time',
  'deep-result': `one completed task whose result's structuredContent is nested ${DEEP_LEVELS.toLocaleString('en')} levels deep`,
  'huge-status': 'tasks/get answers a 20 MB statusMessage; the task works for ever',
  'notification-flood': `the GET stream sends ~${FLOOD_PER_SECOND} notifications/tasks/status a second for ${FLOOD_FOR_MS / 1000} s after it opens, mostly for unknown task ids`,
  'endless-list': 'tasks/list returns 100 tasks a page and a fresh nextCursor on every page, for ever',
  'huge-list': `${HUGE_LIST_SIZE.toLocaleString('en')} working tasks, listed 100 a page`,
  'silent-get': 'tasks/get is never answered (held open until the receiver closes)',
  'endless-sse-answer':
    'tasks/get answers text/event-stream with `: ping` every second and never the response',
  'wrong-id': 'tasks/get answers a correct-looking response carrying another id (id + 1000)',
  'future-created': 'one task created and updated a day in the future, one normal task (ttl 10 min)',
  'ttl-absurd': 'one working task with ttl 1e300',
  'elicitation-flood': `one input_required task; tasks/result streams ${ELICITATIONS.toLocaleString('en')} elicitation/create requests and stays open`,
  'wide-elicitation': `one input_required task; tasks/result streams one elicitation/create with ${WIDE_PROPERTIES.toLocaleString('en')} string properties`,
};

// ---------------------------------------------------------------------------------------------------------
// Big payloads, built once on first use and reused.

let hugeStatus: Buffer | undefined;
/** 20 MB of JSON-safe ASCII, the body of a JSON string. */
function hugeStatusBytes(): Buffer {
  if (!hugeStatus) {
    const unit = 'This statusMessage is 20 MB long. ';
    hugeStatus = Buffer.from(
      unit.repeat(Math.ceil(HUGE_STATUS_BYTES / unit.length)).slice(0, HUGE_STATUS_BYTES),
    );
  }
  return hugeStatus;
}

let deepValue: Buffer | undefined;
/** `{"a":{"a":…{"depth":100000}…}}`: written as text, since JSON.stringify would overflow the stack. */
function deepValueBytes(): Buffer {
  if (!deepValue) {
    const open = '{"a":'.repeat(DEEP_LEVELS - 1);
    const close = '}'.repeat(DEEP_LEVELS - 1);
    deepValue = Buffer.from(`${open}{"depth":${DEEP_LEVELS}}${close}`);
  }
  return deepValue;
}

let wideSchema: string | undefined;
/** A requestedSchema with 10,000 string properties, as JSON text. */
function wideSchemaJson(): string {
  if (!wideSchema) {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < WIDE_PROPERTIES; i++) {
      properties[`field_${i}`] = { type: 'string', title: `Field ${i}`, description: `Answer number ${i}` };
    }
    wideSchema = JSON.stringify({ type: 'object', properties, required: ['field_0'] });
  }
  return wideSchema;
}

// ---------------------------------------------------------------------------------------------------------
// State per case.

interface Counter {
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

const newCounter = (): Counter => ({
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

interface CaseState {
  name: CaseName;
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

interface Rpc {
  c: CaseState;
  res: ServerResponse;
  id: Id;
  params: Record<string, unknown>;
}

interface CaseSpec {
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
}

// ---------------------------------------------------------------------------------------------------------
// Held-open requests and streams.

/** A response kept open: its timers stop when it ends, by the client going away or by close(). */
class Held {
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

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Sends a body made of parts (strings and prebuilt Buffers), so big payloads are never copied. */
function sendParts(res: ServerResponse, parts: (string | Buffer)[]) {
  const length = parts.reduce((n, p) => n + (typeof p === 'string' ? Buffer.byteLength(p) : p.length), 0);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': length });
  for (const part of parts) res.write(part);
  res.end();
}

const result = (res: ServerResponse, id: Id | null, value: unknown, headers?: Record<string, string>) =>
  sendJson(res, 200, { jsonrpc: '2.0', id, result: value }, headers);

const rpcError = (res: ServerResponse, id: Id | null, code: number, message: string, data?: unknown) =>
  sendJson(res, 200, {
    jsonrpc: '2.0',
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  });

function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
  });
  res.flushHeaders();
}

const sseMessage = (eventId: string | number, message: unknown) =>
  `event: message\nid: ${eventId}\ndata: ${JSON.stringify(message)}\n\n`;

function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname);
  } catch {
    return false;
  }
}

function isLoopbackHost(host: string | undefined): boolean {
  if (!host || /[\s/\\?#@]/.test(host)) return false;
  try {
    return LOOPBACK_HOSTS.has(new URL(`http://${host}`).hostname);
  } catch {
    return false;
  }
}

/** The body as text, or null when it is over the limit (drained, not kept). */
function readBody(req: IncomingMessage): Promise<string | null> {
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

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is Id => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

// ---------------------------------------------------------------------------------------------------------
// Tasks.

function makeTask(taskId: string, at: number, over: Partial<WireTask> = {}): WireTask {
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

const relatedMeta = (taskId: string) => ({ [RELATED_TASK]: { taskId } });

function lookup(c: CaseState, taskId: string): WireTask | undefined {
  return c.byId.get(taskId) ?? c.spec.virtualTask?.(c, taskId);
}

function defaultList(rpc: Rpc, cursor: string | undefined): void {
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

// ---------------------------------------------------------------------------------------------------------
// The cases.

const one =
  (taskId: string, over: Partial<WireTask> = {}) =>
  (at: number) => [makeTask(taskId, at, over)];

/** tasks/result on an input_required task: an SSE stream of elicitation/create requests that stays open. */
function elicitationStream(
  registry: Set<Held>,
  rpc: Rpc,
  task: WireTask,
  count: number,
  params: (i: number) => string,
): boolean {
  if (task.status !== 'input_required') return false;
  const { c, res } = rpc;
  const call = ++c.created;
  startSse(res);
  const held = new Held(registry, c, res);
  for (let i = 0; i < count; i++) {
    // params is JSON text already (the wide schema is built once as text).
    held.write(
      `event: message\nid: ${call}-${i}\ndata: {"jsonrpc":"2.0","id":"elicit-${call}-${i}","method":"elicitation/create","params":${params(i)}}\n\n`,
    );
    c.counter.elicitationsSent++;
  }
  held.every(STREAM_PING_MS, () => held.write(': ping\n\n'));
  return true;
}

const endlessTask = (c: CaseState, taskId: string) =>
  makeTask(taskId, c.resetAt, { statusMessage: 'made up from the cursor' });

function buildSpecs(registry: Set<Held>): Record<CaseName, CaseSpec> {
  return {
    'huge-interval': {
      seed: (at) => [
        makeTask('interval-1e12', at, { pollInterval: 1e12, statusMessage: 'pollInterval 1e12 ms' }),
        makeTask('interval-2pow31', at, { pollInterval: 2 ** 31, statusMessage: 'pollInterval 2^31 ms' }),
      ],
      newTaskPollInterval: 1e12,
    },

    'retry-after-http': {
      seed: one('rate-limited-http'),
      get: ({ res, id }) =>
        sendJson(
          res,
          429,
          {
            jsonrpc: '2.0',
            id,
            error: { code: -32429, message: `Too Many Requests: retry after ${RETRY_AFTER_SECONDS} s` },
          },
          { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        ),
    },

    'retry-after-rpc': {
      seed: one('rate-limited-rpc'),
      // Taskscope's classifier (src/mcp/classify.ts) reads data.retryAfterMs as ms and data.retryAfter as s.
      get: ({ res, id }) => rpcError(res, id, -32429, 'Too Many Requests', { retryAfterMs: RETRY_AFTER_MS }),
    },

    'sse-retry-zero': {
      seed: one('retry-zero'),
      stream: (_c, res) => {
        startSse(res);
        res.end('retry: 0\n\n');
      },
    },

    'deep-result': {
      seed: one('deep', {
        status: 'completed',
        statusMessage: `result nested ${DEEP_LEVELS} levels deep`,
      }),
      result: ({ res, id }, task) => {
        if (task.status !== 'completed') return false;
        const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"structuredContent is nested ${DEEP_LEVELS} levels deep"}],"isError":false,"_meta":${JSON.stringify(relatedMeta(task.taskId))},"structuredContent":`;
        sendParts(res, [head, deepValueBytes(), '}}']);
        return true;
      },
    },

    'huge-status': {
      seed: one('huge-status', { statusMessage: 'tasks/get answers a 20 MB statusMessage' }),
      get: ({ res, id }, task) => {
        if (!task) return rpcError(res, id, -32602, 'Task not found');
        const marker = '@@HUGE_STATUS@@';
        const [before, after] = JSON.stringify({
          jsonrpc: '2.0',
          id,
          result: { ...task, statusMessage: marker },
        }).split(`"${marker}"`);
        sendParts(res, [`${before}"`, hugeStatusBytes(), `"${after}`]);
      },
    },

    'notification-flood': {
      seed: one('flood-listed'),
      onStreamOpen: (c, held) => {
        const started = Date.now();
        const known = c.listed[0];
        let sent = 0;
        held.every(FLOOD_TICK_MS, () => {
          const elapsed = Date.now() - started;
          if (elapsed >= FLOOD_FOR_MS) return false;
          // Skip a tick rather than buffer without bound when the client does not read.
          if (held.res.writableLength > 4 * 1024 * 1024) return;
          const due = Math.min(
            Math.floor((elapsed * FLOOD_PER_SECOND) / 1000),
            (FLOOD_FOR_MS * FLOOD_PER_SECOND) / 1000,
          );
          const batch: string[] = [];
          const nowIso = new Date().toISOString();
          for (let n = 0; sent < due && n < FLOOD_PER_SECOND; n++) {
            sent++;
            const params =
              known && Math.random() < FLOOD_KNOWN_SHARE
                ? { ...known, statusMessage: `flood #${sent}`, lastUpdatedAt: nowIso }
                : {
                    ...makeTask(`flood-${randomBytes(6).toString('hex')}`, started),
                    statusMessage: `flood #${sent}`,
                    lastUpdatedAt: nowIso,
                  };
            batch.push(
              sseMessage(`f${sent}`, { jsonrpc: '2.0', method: 'notifications/tasks/status', params }),
            );
          }
          c.counter.notificationsSent += batch.length;
          if (batch.length > 0) held.write(batch.join(''));
        });
      },
    },

    'endless-list': {
      seed: () => [],
      virtualTask: (c, taskId) => (/^endless-\d+-\d+$/.test(taskId) ? endlessTask(c, taskId) : undefined),
      list: ({ c, res, id }, cursor) => {
        let page = 0;
        if (cursor !== undefined) {
          const match = /^e(\d+)\./.exec(cursor);
          if (!match) return rpcError(res, id, -32602, `Invalid cursor: ${cursor.slice(0, 100)}`);
          page = Number(match[1]);
        }
        const tasks = Array.from({ length: PAGE_SIZE }, (_, i) => {
          const taskId = `endless-${page}-${i}`;
          return c.byId.get(taskId) ?? endlessTask(c, taskId);
        });
        result(res, id, { tasks, nextCursor: `e${page + 1}.${randomBytes(4).toString('hex')}` });
      },
    },

    'huge-list': {
      seed: (at) => Array.from({ length: HUGE_LIST_SIZE }, (_, i) => makeTask(`huge-list-${i}`, at)),
    },

    'silent-get': {
      seed: one('silent'),
      get: ({ c, res }) => void new Held(registry, c, res),
    },

    'endless-sse-answer': {
      seed: one('endless-sse'),
      get: ({ c, res }) => {
        startSse(res);
        const held = new Held(registry, c, res);
        held.write(': ping\n\n');
        held.every(1000, () => held.write(': ping\n\n'));
      },
    },

    'wrong-id': {
      seed: one('wrong-id'),
      get: ({ res, id }, task) => {
        const wrong = typeof id === 'number' ? id + 1000 : `${id}+1000`;
        if (!task) return rpcError(res, wrong, -32602, 'Task not found');
        result(res, wrong, task);
      },
    },

    'future-created': {
      seed: (at) => [
        makeTask('from-tomorrow', at + DAY_MS, { statusMessage: 'createdAt and lastUpdatedAt a day ahead' }),
        makeTask('normal', at, { statusMessage: 'ttl 10 min' }),
      ],
    },

    'ttl-absurd': {
      seed: one('ttl-1e300', { ttl: 1e300, statusMessage: 'ttl 1e300 ms' }),
    },

    'elicitation-flood': {
      seed: one('elicit-flood', {
        status: 'input_required',
        statusMessage: `needs ${ELICITATIONS} answers: call tasks/result`,
      }),
      result: (rpc, task) =>
        elicitationStream(registry, rpc, task, ELICITATIONS, (i) =>
          JSON.stringify({
            mode: 'form',
            message: `Question ${i + 1} of ${ELICITATIONS}`,
            requestedSchema: {
              type: 'object',
              properties: { answer: { type: 'string', title: `Answer ${i + 1}` } },
              required: ['answer'],
            },
            _meta: relatedMeta(task.taskId),
          }),
        ),
    },

    'wide-elicitation': {
      seed: one('wide-elicit', {
        status: 'input_required',
        statusMessage: `needs one answer with ${WIDE_PROPERTIES} fields: call tasks/result`,
      }),
      result: (rpc, task) =>
        elicitationStream(
          registry,
          rpc,
          task,
          1,
          () =>
            `{"mode":"form","message":"One form with ${WIDE_PROPERTIES} fields","requestedSchema":${wideSchemaJson()},"_meta":${JSON.stringify(relatedMeta(task.taskId))}}`,
        ),
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// The server.

export async function startHostileReceiver(opts: { port?: number } = {}): Promise<HostileReceiver> {
  const held = new Set<Held>();
  const specs = buildSpecs(held);
  const cases = new Map<string, CaseState>();
  let closed = false;

  const resetCase = (c: CaseState) => {
    c.resetAt = Date.now();
    c.counter = newCounter();
    c.listed = c.spec.seed(c.resetAt);
    c.byId = new Map(c.listed.map((t) => [t.taskId, t]));
    c.created = 0;
  };
  for (const name of CASE_NAMES) {
    const c: CaseState = {
      name,
      spec: specs[name],
      listed: [],
      byId: new Map(),
      resetAt: 0,
      counter: newCounter(),
      open: 0,
      waiters: new Map(),
      created: 0,
    };
    resetCase(c);
    cases.set(name, c);
  }

  const countGet = (c: CaseState, taskId: string) => {
    const entry = c.counter.tasksGet.get(taskId);
    if (entry) {
      entry.count++;
      if (entry.at.length < MAX_ARRIVALS) entry.at.push(Date.now());
    } else if (c.counter.tasksGet.size < MAX_TRACKED_IDS) {
      c.counter.tasksGet.set(taskId, { count: 1, at: [Date.now()] });
    } else {
      c.counter.tasksGetUntracked++;
    }
  };

  const openStream = (c: CaseState, res: ServerResponse) => {
    if (c.spec.stream) return c.spec.stream(c, res);
    startSse(res);
    const stream = new Held(held, c, res);
    stream.write(': stream open\n\n');
    stream.every(STREAM_PING_MS, () => stream.write(': ping\n\n'));
    c.spec.onStreamOpen?.(c, stream);
  };

  const request = (rpc: Rpc, method: string): void => {
    const { c, res, id, params } = rpc;
    switch (method) {
      case 'initialize':
        return result(
          res,
          id,
          {
            protocolVersion: PROTOCOL_VERSION,
            capabilities: {
              tools: {},
              tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
            },
            serverInfo: { name: `hostile-${c.name}`, version: '0' },
            instructions: `Taskscope's hostile receiver, case "${c.name}": ${CASE_DESCRIPTIONS[c.name]}. It misbehaves on purpose, to test clients.`,
          },
          { 'Mcp-Session-Id': `hostile-${c.name}-${randomUUID()}` },
        );
      case 'ping':
        return result(res, id, {});
      case 'tools/list':
        return result(res, id, {
          tools: [
            {
              name: 'job',
              description: `Starts a task on the hostile receiver's "${c.name}" case; it works for ever.`,
              inputSchema: { type: 'object', properties: {} },
              execution: { taskSupport: 'required' },
            },
          ],
        });
      case 'tools/call': {
        if (params.name !== 'job') return rpcError(res, id, -32602, `Unknown tool: ${String(params.name)}`);
        if (!isRecord(params.task)) return rpcError(res, id, -32601, 'Tool job must be called as a task');
        const task = makeTask(`${c.name}-job-${++c.created}-${randomBytes(3).toString('hex')}`, Date.now(), {
          pollInterval: c.spec.newTaskPollInterval ?? POLL_MS,
          statusMessage: 'started by tools/call; works for ever',
        });
        c.listed.push(task);
        c.byId.set(task.taskId, task);
        return result(res, id, { task });
      }
      case 'tasks/list': {
        const cursor = params.cursor;
        if (cursor !== undefined && typeof cursor !== 'string')
          return rpcError(res, id, -32602, 'Invalid cursor');
        return (c.spec.list ?? defaultList)(rpc, cursor);
      }
      case 'tasks/get': {
        const taskId = params.taskId;
        if (typeof taskId !== 'string') return rpcError(res, id, -32602, 'taskId must be a string');
        countGet(c, taskId);
        const task = lookup(c, taskId);
        if (c.spec.get) return c.spec.get(rpc, task);
        return task
          ? result(res, id, task)
          : rpcError(res, id, -32602, `Task not found: ${taskId.slice(0, 100)}`);
      }
      case 'tasks/result': {
        const taskId = params.taskId;
        if (typeof taskId !== 'string') return rpcError(res, id, -32602, 'taskId must be a string');
        const task = lookup(c, taskId);
        if (!task) return rpcError(res, id, -32602, `Task not found: ${taskId.slice(0, 100)}`);
        if (c.spec.result?.(rpc, task)) return;
        if (task.status === 'completed' || task.status === 'failed') {
          const failed = task.status === 'failed';
          return result(res, id, {
            content: [{ type: 'text', text: failed ? 'The job failed.' : 'The job is done.' }],
            isError: failed,
            _meta: relatedMeta(taskId),
          });
        }
        if (task.status === 'cancelled')
          return rpcError(res, id, -32602, `Task ${taskId} has no result stored`);
        // A live task: block until it ends (only a cancel ends one here) or the receiver closes.
        let waiting = c.waiters.get(taskId);
        if (!waiting) c.waiters.set(taskId, (waiting = new Set()));
        const set = waiting;
        const waiter: Held = new Held(
          held,
          c,
          res,
          () => {
            set.delete(waiter);
            if (set.size === 0 && c.waiters.get(taskId) === set) c.waiters.delete(taskId);
          },
          id,
        );
        set.add(waiter);
        return;
      }
      case 'tasks/cancel': {
        const taskId = params.taskId;
        if (typeof taskId !== 'string') return rpcError(res, id, -32602, 'taskId must be a string');
        const task = lookup(c, taskId);
        if (!task) return rpcError(res, id, -32602, `Task not found: ${taskId.slice(0, 100)}`);
        if (TERMINAL.has(task.status)) {
          return rpcError(res, id, -32602, `Cannot cancel task ${taskId}: it is already ${task.status}`);
        }
        task.status = 'cancelled';
        task.statusMessage = 'Cancelled by request';
        task.lastUpdatedAt = new Date().toISOString();
        c.byId.set(taskId, task);
        for (const waiter of [...(c.waiters.get(taskId) ?? [])]) {
          waiter.answer(200, {
            jsonrpc: '2.0',
            id: waiter.requestId,
            error: { code: -32602, message: `Task ${taskId} was cancelled: no result stored` },
          });
        }
        return result(res, id, task);
      }
      default:
        return rpcError(res, id, -32601, `Method not found: ${method}`);
    }
  };

  const post = async (c: CaseState, req: IncomingMessage, res: ServerResponse) => {
    c.counter.POST++;
    const body = await readBody(req);
    if (closed) return void res.destroy();
    if (body === null)
      return sendJson(res, 413, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Body too large' },
      });
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return sendJson(res, 400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error' },
      });
    }
    if (!isRecord(message)) {
      return sendJson(res, 400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: one JSON-RPC message per POST (no batches)' },
      });
    }
    if (message.method === undefined && ('result' in message || 'error' in message)) {
      c.counter.responses++;
      res.writeHead(202).end();
      return;
    }
    if (typeof message.method !== 'string') {
      return sendJson(res, 400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request' },
      });
    }
    const method = message.method;
    c.counter.methods.set(method, (c.counter.methods.get(method) ?? 0) + 1);
    if (!isId(message.id)) {
      res.writeHead(202).end();
      return;
    }
    const params = isRecord(message.params) ? message.params : {};
    request({ c, res, id: message.id, params }, method);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (closed) return void res.destroy();
    // DNS rebinding: a foreign page re-pointing its name at 127.0.0.1 still sends its own Host.
    if (!isLoopbackHost(req.headers.host)) {
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end('Forbidden: Host is not a loopback name\n');
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !isLoopbackOrigin(origin)) {
      return sendJson(res, 403, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: `Origin ${origin} is not allowed by this receiver` },
      });
    }
    if (origin !== undefined) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const c = cases.get(/^\/([a-z-]+)\/mcp\/?$/.exec(path)?.[1] ?? '');
    if (!c) {
      const known = path === '/' || path === '';
      return sendJson(res, known ? 200 : 404, {
        ...(known ? {} : { error: `No case at ${path.slice(0, 200)}` }),
        cases: Object.fromEntries(
          CASE_NAMES.map((n) => [n, { path: `/${n}/mcp`, does: CASE_DESCRIPTIONS[n] }]),
        ),
      });
    }
    switch (req.method) {
      case 'OPTIONS':
        c.counter.OPTIONS++;
        res.writeHead(204, {
          'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
          'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS,
        });
        res.end();
        return;
      case 'POST':
        return post(c, req, res);
      case 'GET':
        if (!/text\/event-stream/.test(req.headers.accept ?? '')) {
          res.writeHead(405, { Allow: 'POST, DELETE' }).end();
          return;
        }
        c.counter.GET++;
        return openStream(c, res);
      case 'DELETE':
        c.counter.DELETE++;
        res.writeHead(200).end();
        return;
      default:
        res.writeHead(405, { Allow: 'GET, POST, DELETE, OPTIONS' }).end();
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) res.writeHead(500).end();
      else res.destroy();
    });
  });
  const listening = await listenOnLoopback(server, opts.port ?? 0);
  let closing: Promise<void> | undefined;

  const caseOf = (name: CaseName): CaseState => {
    const c = cases.get(name);
    if (!c) throw new Error(`Unknown hostile case: ${String(name)}`);
    return c;
  };

  return {
    url: listening.url,
    caseUrl: (name) => `${listening.url}/${caseOf(name).name}/mcp`,
    counts: (name) => {
      const c = caseOf(name);
      const k = c.counter;
      return {
        methods: Object.fromEntries(k.methods),
        GET: k.GET,
        POST: k.POST,
        DELETE: k.DELETE,
        OPTIONS: k.OPTIONS,
        responses: k.responses,
        tasksGet: Object.fromEntries(
          [...k.tasksGet].map(([id, e]) => [id, { count: e.count, at: [...e.at] }]),
        ),
        tasksGetUntracked: k.tasksGetUntracked,
        notificationsSent: k.notificationsSent,
        elicitationsSent: k.elicitationsSent,
        open: c.open,
      };
    },
    reset: (name) => {
      for (const c of name ? [caseOf(name)] : cases.values()) resetCase(c);
    },
    close: () => {
      closing ??= (async () => {
        closed = true;
        for (const h of [...held]) h.end();
        await listening.close();
      })();
      return closing;
    },
  };
}
