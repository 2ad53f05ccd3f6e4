/**
 * The receiver bench:ui measures against: just enough MCP 2025-11-25 Streamable HTTP (JSON answers, never SSE)
 * on plain node:http, holding N live tasks created on the receiver, and logging every tasks/get and tasks/result
 * arrival in memory so the bench counts polls from the receiver's side.
 *
 * It runs as a child process of the bench (spawnLiveReceiver), not in the bench's own process: the bench's
 * event loop is busy with Playwright's CDP traffic, and an arrival stamped there would carry that delay. In a
 * child the stamps are taken on an event loop that does nothing else. Both servers listen on 127.0.0.1 only.
 *
 * - mcp server: POST /mcp (MCP), GET /mcp (the notification stream: `notifications/tasks/status` at every
 *   task's transition, as SDK receivers push while it is open; refused with BENCH_UI_STREAM=off), POST /bare (a trivial JSON-RPC answer for the
 *   bare fetch capacity loop). tasks/list pages 200 tasks at a time.
 * - host server: GET / a blank page on another origin, from which the capacity loop fetches /bare cross-origin
 *   with the headers the app sends, so it pays the same CORS rules the app's polls do.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export const POLL_INTERVAL_MS = 1000;
/** BENCH_UI_STREAM=off: GET /mcp is refused (405), so no stream holds one of the page's connections. */
const STREAM = process.env.BENCH_UI_STREAM !== 'off';
const TTL_MS = 600_000;
const LIST_PAGE = 200;
const COMPLETE_AFTER_MS: [number, number] = [30_000, 90_000];

/** Status codes in the log. */
export const STATUS = { unknown: -1, working: 0, completed: 1, failed: 2, cancelled: 3 } as const;
const STATUS_NAMES = ['working', 'completed', 'failed', 'cancelled'] as const;
export const isTerminalCode = (code: number) => code > 0;

/** The in-memory log, column by column: entry i is (kind[i], task[i], arrivedAt[i], answeredAt[i], status[i]). */
export interface ReceiverLog {
  /** 0 tasks/get, 1 tasks/result */
  kind: Float64Array;
  /** index of the task in this size's set, -1 for an unknown id */
  task: Float64Array;
  /** performance.now() in the receiver when the request arrived (headers received) */
  arrivedAt: Float64Array;
  /** performance.now() when the answer was written */
  answeredAt: Float64Array;
  /** the status answered (STATUS), -1 for an error */
  status: Float64Array;
  /** per task: when it completes, receiver clock */
  completesAt: Float64Array;
  taskIds: string[];
  preflights: number;
  otherRequests: Record<string, number>;
  /** notifications/tasks/status frames written, over every open stream */
  pushesSent: number;
  /** per task: when its completion was first pushed on an open stream (Infinity: never) */
  pushedAt: Float64Array;
  streamsOpen: number;
}

interface Task {
  id: string;
  createdAt: string;
  completesAt: number;
  completesAtWall: number;
  cancelledAt?: number;
}

/** mulberry32: the same sizes get the same completion times run after run. */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]']);
function allowedOrigin(origin: string | undefined): string | undefined {
  if (!origin) return undefined;
  try {
    return loopbackHosts.has(new URL(origin).hostname) ? origin : undefined;
  } catch {
    return undefined;
  }
}

function corsHeaders(req: IncomingMessage): Record<string, string> {
  const origin = allowedOrigin(req.headers.origin);
  if (!origin) return {};
  return {
    'Access-Control-Allow-Origin': origin,
    Vary: 'Origin',
    'Access-Control-Allow-Headers':
      '*, content-type, mcp-session-id, mcp-protocol-version, authorization, last-event-id',
    'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
    'Access-Control-Expose-Headers': 'Mcp-Session-Id, MCP-Protocol-Version',
  };
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    });
  });
}

export function createLiveReceiver() {
  let tasks: Task[] = [];
  let byId = new Map<string, number>();
  // Columns grow as plain arrays; log() copies them out.
  let kind: number[] = [];
  let taskCol: number[] = [];
  let arrived: number[] = [];
  let answered: number[] = [];
  let statusCol: number[] = [];
  let preflights = 0;
  let other: Record<string, number> = {};
  const bareArrivals: number[] = [];
  const waitingResults = new Set<ReturnType<typeof setTimeout>>();
  /** Open GET streams, each sent every status push. */
  const streams = new Set<ServerResponse>();
  const transitionTimers = new Set<ReturnType<typeof setTimeout>>();
  let pushesSent = 0;
  let pushedAt = new Map<string, number>();
  const push = (task: Task) => {
    if (streams.size > 0 && !pushedAt.has(task.id)) pushedAt.set(task.id, performance.now());
    const frame = `event: message\ndata: ${JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/tasks/status',
      params: wireTask(task, performance.now()),
    })}\n\n`;
    for (const stream of streams) {
      stream.write(frame);
      pushesSent++;
    }
  };
  const clearTransitions = () => {
    for (const timer of transitionTimers) clearTimeout(timer);
    transitionTimers.clear();
  };

  const statusOf = (task: Task, now: number): number => {
    if (task.cancelledAt !== undefined && task.cancelledAt < task.completesAt) return STATUS.cancelled;
    return now >= task.completesAt ? STATUS.completed : STATUS.working;
  };
  const wireTask = (task: Task, now: number) => {
    const code = statusOf(task, now);
    const updated =
      code === STATUS.working
        ? task.createdAt
        : new Date(
            code === STATUS.completed ? task.completesAtWall : Date.now() - (now - task.cancelledAt!),
          ).toISOString();
    return {
      taskId: task.id,
      status: STATUS_NAMES[code],
      createdAt: task.createdAt,
      lastUpdatedAt: updated,
      ttl: TTL_MS,
      pollInterval: POLL_INTERVAL_MS,
    };
  };

  const send = (req: IncomingMessage, res: ServerResponse, status: number, body?: unknown, extra = {}) => {
    const headers: Record<string, string> = { ...corsHeaders(req), ...extra };
    if (body === undefined) {
      res.writeHead(status, headers).end();
      return;
    }
    headers['Content-Type'] = 'application/json';
    res.writeHead(status, headers).end(JSON.stringify(body));
  };

  function handleRpc(req: IncomingMessage, res: ServerResponse, message: Record<string, unknown>, t: number) {
    const id = message.id as string | number | undefined;
    const method = typeof message.method === 'string' ? message.method : '';
    const params = (message.params ?? {}) as Record<string, unknown>;
    const result = (value: unknown, extra = {}) =>
      send(req, res, 200, { jsonrpc: '2.0', id, result: value }, extra);
    const error = (code: number, text: string) =>
      send(req, res, 200, { jsonrpc: '2.0', id, error: { code, message: text } });
    const log = (k: number, index: number, code: number) => {
      kind.push(k);
      taskCol.push(index);
      arrived.push(t);
      answered.push(performance.now());
      statusCol.push(code);
    };

    if (id === undefined || method.startsWith('notifications/')) {
      send(req, res, 202);
      return;
    }
    switch (method) {
      case 'initialize':
        result(
          {
            protocolVersion: '2025-11-25',
            capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
            serverInfo: { name: 'taskscope-bench-receiver', version: '1.0.0' },
          },
          { 'Mcp-Session-Id': randomUUID() },
        );
        return;
      case 'ping':
        result({});
        return;
      case 'tools/list':
        result({ tools: [] });
        return;
      case 'tasks/list': {
        const start = typeof params.cursor === 'string' ? Number(params.cursor) || 0 : 0;
        const now = performance.now();
        const page = tasks.slice(start, start + LIST_PAGE).map((task) => wireTask(task, now));
        const next = start + LIST_PAGE < tasks.length ? String(start + LIST_PAGE) : undefined;
        result(next ? { tasks: page, nextCursor: next } : { tasks: page });
        return;
      }
    }
    const taskId = typeof params.taskId === 'string' ? params.taskId : '';
    const index = byId.get(taskId) ?? -1;
    const task = tasks[index];
    if (method === 'tasks/get' || method === 'tasks/result' || method === 'tasks/cancel') {
      if (!task) {
        error(-32602, `Unknown task: ${taskId}`);
        if (method !== 'tasks/cancel') log(method === 'tasks/get' ? 0 : 1, -1, STATUS.unknown);
        return;
      }
    }
    switch (method) {
      case 'tasks/get': {
        const now = performance.now();
        result(wireTask(task!, now));
        log(0, index, statusOf(task!, now));
        return;
      }
      case 'tasks/result': {
        const answer = () => {
          result({
            content: [{ type: 'text', text: 'done' }],
            _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
          });
          log(1, index, statusOf(task!, performance.now()));
        };
        // tasks/result waits for a terminal status; the app should never ask early, but a receiver must cope.
        const wait = task!.completesAt - performance.now();
        if (wait <= 0 || statusOf(task!, performance.now()) !== STATUS.working) answer();
        else {
          const timer = setTimeout(() => {
            waitingResults.delete(timer);
            answer();
          }, wait + 1);
          waitingResults.add(timer);
        }
        return;
      }
      case 'tasks/cancel': {
        if (statusOf(task!, performance.now()) !== STATUS.working) {
          error(-32602, `Task ${taskId} is already terminal`);
          return;
        }
        task!.cancelledAt = performance.now();
        result(wireTask(task!, performance.now()));
        return;
      }
    }
    other[method] = (other[method] ?? 0) + 1;
    error(-32601, `Method not found: ${method}`);
  }

  const mcp = createServer((req, res) => {
    const t = performance.now();
    if (req.method === 'OPTIONS') {
      preflights++;
      send(req, res, 204);
      return;
    }
    if (req.method === 'DELETE') {
      send(req, res, 200);
      return;
    }
    if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/mcp' && STREAM) {
      res.writeHead(200, {
        ...corsHeaders(req),
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-cache',
        Connection: 'keep-alive',
      });
      res.write(': open\n\n');
      streams.add(res);
      res.on('close', () => streams.delete(res));
      return;
    }
    if (req.method !== 'POST') {
      send(req, res, 405, undefined, { Allow: 'GET, POST, DELETE, OPTIONS' });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let message: unknown;
      try {
        message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        send(req, res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        return;
      }
      const route = (req.url ?? '/').split('?')[0];
      if (route === '/bare') {
        bareArrivals.push(t);
        const id = (message as { id?: unknown } | null)?.id ?? null;
        send(req, res, 200, { jsonrpc: '2.0', id, result: { ok: true } });
        return;
      }
      if (route !== '/mcp' || typeof message !== 'object' || message === null || Array.isArray(message)) {
        send(req, res, route === '/mcp' ? 400 : 404, {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Invalid request' },
        });
        return;
      }
      handleRpc(req, res, message as Record<string, unknown>, t);
    });
  });
  // Polls keep the sockets busy; a long keep-alive avoids reconnect churn when a page goes quiet for a moment.
  mcp.keepAliveTimeout = 30_000;

  const host = createServer((req, res) => {
    res.writeHead(req.method === 'GET' ? 200 : 405, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><meta charset="utf-8"><title>bench:ui bare fetch</title>');
  });

  return {
    async listen() {
      const [mcpBase, hostBase] = await Promise.all([listen(mcp), listen(host)]);
      return { mcpUrl: `${mcpBase}/mcp`, bareUrl: `${mcpBase}/bare`, hostUrl: `${hostBase}/` };
    },
    /** A fresh set of n working tasks, created now; each completes 30–90 s from now. Clears the log. */
    reset(n: number): number {
      for (const timer of waitingResults) clearTimeout(timer);
      waitingResults.clear();
      clearTransitions();
      pushesSent = 0;
      pushedAt = new Map();
      const random = seeded(n * 7919 + 1);
      const now = performance.now();
      const wall = Date.now();
      tasks = [];
      byId = new Map();
      for (let i = 0; i < n; i++) {
        const hex = Array.from({ length: 4 }, () =>
          Math.floor(random() * 0x10000)
            .toString(16)
            .padStart(4, '0'),
        ).join('');
        const after = COMPLETE_AFTER_MS[0] + random() * (COMPLETE_AFTER_MS[1] - COMPLETE_AFTER_MS[0]);
        const task: Task = {
          id: `bench-${String(i).padStart(4, '0')}-${hex}`,
          createdAt: new Date(wall).toISOString(),
          completesAt: now + after,
          completesAtWall: wall + after,
        };
        byId.set(task.id, i);
        tasks.push(task);
        // Its one transition (working → completed) is pushed on every open stream when it happens.
        const timer = setTimeout(() => {
          transitionTimers.delete(timer);
          if (task.cancelledAt === undefined) push(task);
        }, after + 1);
        transitionTimers.add(timer);
      }
      kind = [];
      taskCol = [];
      arrived = [];
      answered = [];
      statusCol = [];
      preflights = 0;
      other = {};
      return now;
    },
    now: () => performance.now(),
    log(): ReceiverLog {
      return {
        kind: Float64Array.from(kind),
        task: Float64Array.from(taskCol),
        arrivedAt: Float64Array.from(arrived),
        answeredAt: Float64Array.from(answered),
        status: Float64Array.from(statusCol),
        completesAt: Float64Array.from(tasks, (task) => task.completesAt),
        taskIds: tasks.map((task) => task.id),
        preflights,
        otherRequests: { ...other },
        pushesSent,
        pushedAt: Float64Array.from(tasks, (task) => pushedAt.get(task.id) ?? Infinity),
        streamsOpen: streams.size,
      };
    },
    /** How many tasks/get arrived in [from, to) on the receiver's clock. */
    pollCount: (from: number, to: number) => {
      let count = 0;
      for (let i = 0; i < arrived.length; i++)
        if (kind[i] === 0 && arrived[i]! >= from && arrived[i]! < to) count++;
      return count;
    },
    /** How many POST /bare arrived in [from, to) on the receiver's clock. */
    bareCount: (from: number, to: number) => bareArrivals.filter((t) => t >= from && t < to).length,
    async close() {
      for (const timer of waitingResults) clearTimeout(timer);
      clearTransitions();
      for (const stream of streams) stream.end();
      await Promise.all(
        [mcp, host].map(
          (server) =>
            new Promise<void>((done) => {
              server.closeAllConnections();
              server.close(() => done());
            }),
        ),
      );
    },
  };
}

export type LiveReceiver = ReturnType<typeof createLiveReceiver>;
type Op = 'reset' | 'now' | 'log' | 'bareCount' | 'pollCount' | 'close';
interface Request {
  seq: number;
  op: Op;
  args: number[];
}

/** The bench's handle on a receiver in a child process: the same methods, asynchronous. */
export interface LiveReceiverProcess {
  mcpUrl: string;
  bareUrl: string;
  hostUrl: string;
  /** The receiver's process, for bench:ui's CPU by process. */
  pid: number | undefined;
  reset(n: number): Promise<number>;
  now(): Promise<number>;
  log(): Promise<ReceiverLog>;
  bareCount(from: number, to: number): Promise<number>;
  pollCount(from: number, to: number): Promise<number>;
  stop(): Promise<void>;
}

export async function spawnLiveReceiver(): Promise<LiveReceiverProcess> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let seq = 0;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const failAll = (error: Error) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  child.on('message', (raw) => {
    const message = raw as { seq: number; value?: unknown; error?: string };
    const p = pending.get(message.seq);
    if (!p) return;
    pending.delete(message.seq);
    if (message.error) p.reject(new Error(message.error));
    else p.resolve(message.value);
  });
  child.once('exit', (code) => failAll(new Error(`bench receiver exited (${code})`)));
  const call = <T>(op: Op, ...args: number[]): Promise<T> =>
    new Promise((resolve, reject) => {
      const request: Request = { seq: ++seq, op, args };
      pending.set(request.seq, { resolve: resolve as (value: unknown) => void, reject });
      child.send(request);
    });
  const urls = await new Promise<{ mcpUrl: string; bareUrl: string; hostUrl: string }>((resolve, reject) => {
    child.once('message', (message) =>
      resolve(message as { mcpUrl: string; bareUrl: string; hostUrl: string }),
    );
    child.once('exit', (code) => reject(new Error(`bench receiver exited before listening (${code})`)));
  });
  let stopped = false;
  return {
    pid: child.pid,
    ...urls,
    reset: (n) => call('reset', n),
    now: () => call('now'),
    log: () => call('log'),
    bareCount: (from, to) => call('bareCount', from, to),
    pollCount: (from, to) => call('pollCount', from, to),
    async stop() {
      if (stopped || child.exitCode !== null) return;
      stopped = true;
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      await Promise.race([call('close').catch(() => undefined), new Promise((r) => setTimeout(r, 3000))]);
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

if (process.send && process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const receiver = createLiveReceiver();
  const urls = await receiver.listen();
  process.send(urls);
  process.on('message', async (raw) => {
    const { seq, op, args } = raw as Request;
    try {
      let value: unknown;
      if (op === 'reset') value = receiver.reset(args[0]!);
      else if (op === 'now') value = receiver.now();
      else if (op === 'log') value = receiver.log();
      else if (op === 'bareCount') value = receiver.bareCount(args[0]!, args[1]!);
      else if (op === 'pollCount') value = receiver.pollCount(args[0]!, args[1]!);
      else if (op === 'close') await receiver.close();
      process.send!({ seq, value });
    } catch (error) {
      process.send!({ seq, error: String(error) });
    }
  });
  // The bench went away (finished, crashed, killed): never outlive it.
  process.on('disconnect', () => {
    void receiver.close().finally(() => process.exit(0));
  });
}
