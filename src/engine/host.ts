import {
  McpSession,
  TasksApi,
  TrafficTap,
  classifyError,
  forTrafficLog,
  serverTaskSupport,
  withRelatedTask,
  type ClassifiedError,
  type TrafficEvent,
} from '../mcp';
import { createQueryClient } from '../tasks/core/query-client';
import { RequestScheduler } from '../tasks/core/request-scheduler';
import { TaskChangeCollector } from '../tasks/core/task-changes';
import { TaskTracker } from '../tasks/core/tracker';
import { DEFAULT_POLL_INTERVAL_MS } from '../tasks/core/interval';
import { queryKeys } from '../tasks/core/query-keys';
import type {
  Batch,
  Command,
  ConnectReply,
  ConnectionNews,
  FromEngine,
  InboxEvent,
  InboxRequest,
  ListStatus,
  PollingHealth,
  Replies,
  ToEngine,
  TrackerSettings,
} from './messages';
import type { QueryClient } from '@tanstack/query-core';

/** Browser connections per origin (HTTP/1.1); the person's own actions and the stream each keep one. */
const CONNECTIONS_PER_ORIGIN = 6;
/** Traffic waiting for the page beyond this is dropped, oldest first, and counted. */
const MAX_PENDING_TRAFFIC = 2000;
/** Inbox events waiting for the page beyond this are dropped, oldest first. */
const MAX_PENDING_INBOX = 1000;
const HEALTH_EVERY_MS = 1000;
/** Above this many tracked tasks, batches go to the page at most every BUSY_BATCH_GAP_MS. */
const MANY_TASKS = 200;
const BUSY_BATCH_GAP_MS = 100;
/** Consecutive failed requests after which the connection shows as degraded. */
const DEGRADED_AFTER = 3;
/** Receiver requests waiting for a person at once; more are refused at once, so a flood cannot fill the page. */
const MAX_WAITING_FOR_PERSON = 50;

export interface HostOptions {
  /** The fetch the sessions use; Node tests pass none and get the global one. */
  fetch?: typeof fetch;
}

interface Waiter {
  request: InboxRequest;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

interface Connection {
  id: number;
  session: McpSession;
  api: TasksApi;
  tracker: TaskTracker;
  scheduler: RequestScheduler;
  queryClient: QueryClient;
  collector: TaskChangeCollector;
  settings: TrackerSettings;
  dirtySnapshots: Set<string>;
  dirtyResults: Set<string>;
  waiters: Map<string, Waiter>;
  stop: () => void;
}

/** A refusal the SDK sends back as a JSON-RPC error with this code. */
class CodedError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/**
 * The engine: everything that talks to a receiver, off the page's main thread. It owns the session (the SDK
 * transport, SSE, the traffic tap), the tracker and its timers, the request budget and the receiver's own
 * requests; the page sends commands and gets batches of what changed. Runs in a Worker in the browser and
 * as a plain object in Node tests.
 */
export class EngineHost {
  private current: Connection | null = null;
  private connectSeq = 0;
  private inboxSeq = 0;
  /** The page has applied our last batch: the next may go. */
  private credit = true;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private tasksDirty = false;
  private lastFlushAt = 0;
  private traffic: TrafficEvent[] = [];
  private trafficDropped = 0;
  private inbox: InboxEvent[] = [];
  private connectionNews: ConnectionNews = {};
  /** The latest settings the page sent, applied to every connection opened after. */
  private settings: TrackerSettings | undefined;
  private listStatus: ListStatus | undefined;
  private polling: PollingHealth | undefined;
  private refusedRequests = 0;
  private refused: string | undefined;

  constructor(
    private readonly post: (message: FromEngine) => void,
    private readonly options: HostOptions = {},
  ) {}

  receive(message: ToEngine): void {
    if (message.type === 'ack') {
      this.credit = true;
      this.schedule();
      return;
    }
    const { id, command } = message;
    this.handle(command).then(
      (value) => {
        // What the command changed reaches the page before its reply does.
        this.flush(true);
        const failure = this.send({ type: 'reply', id, value });
        if (failure)
          this.send({ type: 'reply', id, failure: `the answer could not reach the page: ${failure}` });
      },
      (error: unknown) => {
        this.flush(true);
        this.send({ type: 'reply', id, failure: error instanceof Error ? error.message : String(error) });
      },
    );
  }

  private async handle(command: Command): Promise<Replies[Command['type']]> {
    const conn = this.current;
    switch (command.type) {
      case 'connect':
        return this.connect(command);
      case 'disconnect':
        this.connectSeq++;
        await this.closeCurrent();
        return null;
      case 'settings':
        this.settings = command.settings;
        if (conn) {
          conn.settings = command.settings;
          conn.tracker.settingsChanged();
        }
        return null;
      case 'listTools':
        if (!conn) throw new Error('Not connected');
        return conn.api.listTools();
      case 'run':
        return this.run(command.tool, command.args, command.ttl);
      case 'callPlain':
        if (!conn) return notConnected();
        try {
          return { ok: true, answer: await conn.api.callTool(command.tool, command.args) };
        } catch (error) {
          return { ok: false, error: classifyError(error, { method: 'tools/call' }) };
        }
      case 'track': {
        const taskId = command.taskId.trim();
        if (!conn || taskId === '' || taskId.length > 512) return false;
        conn.tracker.track(taskId, { origin: 'manual' });
        return true;
      }
      case 'cancel':
        return conn ? conn.tracker.cancel(command.taskId) : null;
      case 'refetchResult':
        conn?.tracker.refetchResult(command.taskId);
        return null;
      case 'stopResult':
        return conn ? conn.tracker.stopResult(command.taskId) : false;
      case 'pollNow':
        conn?.tracker.pollNow(command.taskId);
        return null;
      case 'trackSeen':
        return conn ? conn.tracker.trackSeen() : 0;
      case 'syncList':
        return conn ? this.syncList(conn) : null;
      case 'answer':
        return this.answer(command.key, command.outcome, command.reply);
    }
  }

  private async connect(command: Extract<Command, { type: 'connect' }>): Promise<ConnectReply> {
    const seq = ++this.connectSeq;
    this.settings = command.settings;
    await this.closeCurrent();
    const tap = new TrafficTap();
    const stopTap = tap.subscribe((event) => {
      if (this.connectSeq === seq) this.queueTraffic(event);
    });
    let session: McpSession;
    try {
      session = await McpSession.connect({
        url: command.url,
        headers: command.headers,
        tap,
        fetch: this.options.fetch,
      });
    } catch (error) {
      stopTap();
      if (seq !== this.connectSeq) return { ok: false, stale: true };
      return {
        ok: false,
        error: await diagnose(command.url, classifyError(error, { method: 'initialize' })),
      };
    }
    if (seq !== this.connectSeq) {
      // Another connect (or a disconnect) came while this one was on its way: this session is nobody's.
      stopTap();
      await session.close();
      return { ok: false, stale: true };
    }
    const conn = this.open(command, session, stopTap);
    const server = session.describeServer();
    void (async () => {
      if (conn.api.support.list) await this.syncList(conn);
      // A deep link (?task=) to a task tasks/list did not bring: follow it, so the page says what became of it.
      const follow = command.followTaskId;
      if (follow && this.current === conn && !conn.tracker.isTracked(follow))
        conn.tracker.track(follow, { origin: 'manual' });
    })();
    return { ok: true, server, support: serverTaskSupport(server.capabilities) };
  }

  private open(
    command: Extract<Command, { type: 'connect' }>,
    session: McpSession,
    stopTap: () => void,
  ): Connection {
    const api = new TasksApi(session);
    const server = session.describeServer();
    // The notification stream holds one connection while it is open; without one, polls may have it.
    const scheduler = new RequestScheduler({ slots: CONNECTIONS_PER_ORIGIN - 2 });
    const streamOpens: number[] = [];
    session.onNotificationStream = (open) => {
      scheduler.setSlots(CONNECTIONS_PER_ORIGIN - (open ? 2 : 1));
      if (!open) return;
      // A stream reopened again and again is a receiver closing it at once (often with `retry: 0`): say so.
      const now = Date.now();
      streamOpens.push(now);
      while ((streamOpens[0] ?? now) < now - 60_000) streamOpens.shift();
      if (streamOpens.length >= 3 && this.current === conn) {
        this.connectionNews.streamNote = `The notification stream closed ${streamOpens.length - 1} times in the last minute; Taskscope reopens it no more than every few seconds, backing off.`;
        this.schedule();
      }
    };
    const queryClient = createQueryClient();
    const conn: Connection = {
      id: command.connectionId,
      session,
      api,
      scheduler,
      queryClient,
      collector: new TaskChangeCollector(),
      // A settings change sent while this connect was on its way is newer than the one it carried.
      settings: this.settings ?? command.settings,
      dirtySnapshots: new Set(),
      dirtyResults: new Set(),
      waiters: new Map(),
      stop: () => undefined,
      tracker: undefined as unknown as TaskTracker,
    };
    conn.tracker = new TaskTracker({
      api,
      queryClient,
      connectionId: conn.id,
      settings: () => conn.settings,
      scheduler,
      // Newer receivers (2026-07-28) carry input requests in tasks/get and have no tasks/result to open.
      openResultForInput: !server.protocolVersion?.startsWith('2026'),
    });
    const stopStore = conn.tracker.store.subscribe(() => {
      this.tasksDirty = true;
      this.schedule();
    });
    // Snapshots and results live in the Worker's query cache; mark the ones that changed for the next batch.
    const stopCache = queryClient.getQueryCache().subscribe((event) => {
      if (event.type !== 'updated' || event.action.type !== 'success') return;
      const key = event.query.queryKey as readonly unknown[];
      const taskId = key[4];
      if (key[3] !== 'task' || typeof taskId !== 'string') return;
      (key[5] === 'result' ? conn.dirtyResults : conn.dirtySnapshots).add(taskId);
      this.schedule();
    });
    const health = setInterval(() => {
      this.polling = this.pollingHealth(conn);
      this.schedule();
    }, HEALTH_EVERY_MS);
    session.setServerRequestHandler(
      (request, signal) =>
        new Promise((resolve, reject) => {
          if (conn.waiters.size >= MAX_WAITING_FOR_PERSON) {
            this.refusedRequests++;
            this.refused = `${this.refusedRequests} ${request.method} requests refused: ${MAX_WAITING_FOR_PERSON} already wait for a person`;
            this.schedule();
            reject(
              new CodedError(`Too many requests waiting for a person (${MAX_WAITING_FOR_PERSON})`, -32603),
            );
            return;
          }
          const item: InboxRequest = {
            key: `${conn.id}:${String(request.id)}:${++this.inboxSeq}`,
            connectionId: conn.id,
            requestId: request.id,
            method: request.method,
            params: request.params,
            relatedTaskId: request.relatedTaskId,
            receivedAt: Date.now(),
          };
          conn.waiters.set(item.key, { request: item, resolve, reject });
          this.queueInbox({ kind: 'asked', request: item });
          this.noteInput(conn, item, 'asked');
          signal.addEventListener('abort', () => {
            if (!conn.waiters.delete(item.key)) return;
            this.queueInbox({
              kind: 'settled',
              key: item.key,
              state: 'cancelled',
              outcome: 'withdrawn by the receiver',
            });
            this.noteInput(conn, item, 'cancelled', 'withdrawn by the receiver');
            reject(new Error('cancelled'));
          });
        }),
    );
    session.onSessionLost = () => {
      if (this.current !== conn) return;
      this.connectionNews.sessionLost = {
        kind: 'session-lost',
        message:
          'The receiver no longer knows this session, and its tasks went with it: reconnect to start a new one.',
      };
      this.schedule();
    };
    session.onClose = () => {
      if (this.current !== conn) return;
      this.connectionNews.closed = true;
      this.schedule();
    };
    let failures = 0;
    let failingSince = 0;
    session.onOutcome = (ok, error) => {
      if (this.current !== conn) return;
      if (ok) {
        if (failures >= DEGRADED_AFTER) {
          this.connectionNews.degraded = null;
          this.schedule();
        }
        failures = 0;
        return;
      }
      // A request the person stopped (or the SDK gave up on) says nothing about the receiver's health.
      if ((error as { name?: string } | undefined)?.name === 'AbortError') return;
      if (failures === 0) failingSince = Date.now();
      failures++;
      const classified = classifyError(error);
      // One deadline missed is already a receiver not answering; other failures must repeat to count.
      if (failures >= DEGRADED_AFTER || classified.kind === 'timeout') {
        failures = Math.max(failures, DEGRADED_AFTER);
        this.connectionNews.degraded = { failures, since: failingSince, error: classified };
        this.schedule();
      }
    };
    conn.stop = () => {
      stopTap();
      stopStore();
      stopCache();
      clearInterval(health);
    };
    this.current = conn;
    return conn;
  }

  private async closeCurrent(): Promise<void> {
    const conn = this.current;
    if (!conn) return;
    this.current = null;
    conn.stop();
    conn.tracker.dispose();
    conn.scheduler.close();
    for (const [key, waiter] of conn.waiters) {
      this.queueInbox({ kind: 'settled', key, state: 'cancelled', outcome: 'connection closed' });
      waiter.reject(new Error('connection closed'));
    }
    conn.waiters.clear();
    conn.queryClient.clear();
    // What was waiting for the page belongs to this connection: the next one starts clean.
    this.tasksDirty = false;
    this.connectionNews = {};
    this.listStatus = undefined;
    this.polling = undefined;
    this.refused = undefined;
    this.refusedRequests = 0;
    await conn.session.close();
  }

  private async run(
    tool: Extract<Command, { type: 'run' }>['tool'],
    args: Record<string, unknown>,
    ttl: number | undefined,
  ): Promise<Replies['run']> {
    const conn = this.current;
    if (!conn) return notConnected();
    const sentAt = Date.now();
    try {
      const created = await conn.api.createTask(tool, args, { ttl });
      if (!created.value) {
        return {
          ok: false,
          error: {
            kind: 'protocol',
            message: `The receiver did not answer with a task: ${created.warnings.map((w) => w.message).join('; ')}`,
          },
        };
      }
      conn.tracker.track(created.value.taskId, {
        origin: 'created',
        tool: tool.name,
        initial: created,
        source: 'create',
        sentAt,
      });
      return { ok: true, taskId: created.value.taskId };
    } catch (error) {
      return { ok: false, error: classifyError(error, { method: 'tools/call' }) };
    }
  }

  private async syncList(conn: Connection): Promise<ClassifiedError | null> {
    this.listStatus = { ...this.listStatus, loading: true, error: undefined };
    this.schedule();
    try {
      const stopped = await conn.tracker.syncList();
      if (this.current === conn) this.listStatus = { loading: false, lastSyncedAt: Date.now(), stopped };
      return null;
    } catch (error) {
      const classified = classifyError(error, { method: 'tasks/list' });
      if (this.current === conn) this.listStatus = { loading: false, error: classified };
      return classified;
    } finally {
      this.schedule();
    }
  }

  private answer(
    key: string,
    outcome: string,
    reply: Extract<Command, { type: 'answer' }>['reply'],
  ): boolean {
    const conn = this.current;
    const waiter = conn?.waiters.get(key);
    if (!conn || !waiter) return false;
    conn.waiters.delete(key);
    this.queueInbox({ kind: 'settled', key, state: 'answered', outcome });
    this.noteInput(conn, waiter.request, 'answered', outcome);
    if ('result' in reply) waiter.resolve(withRelatedTask(reply.result, waiter.request.relatedTaskId));
    else waiter.reject(new CodedError(reply.error.message, reply.error.code));
    return true;
  }

  private noteInput(
    conn: Connection,
    item: InboxRequest,
    phase: 'asked' | 'answered' | 'cancelled',
    detail?: string,
  ): void {
    if (item.relatedTaskId && conn.tracker.isTracked(item.relatedTaskId))
      conn.tracker.noteInput(item.relatedTaskId, { method: item.method, phase, detail });
  }

  private pollingHealth(conn: Connection): PollingHealth {
    const { tasks } = conn.tracker.store.getState();
    let liveTasks = 0;
    let demandPerSecond = 0;
    const floor = conn.settings.minPollIntervalMs;
    if (!conn.settings.paused) {
      for (const task of tasks.values()) {
        if (task.lifecycle !== 'live' || task.dormant) continue;
        liveTasks++;
        const interval = conn.tracker.snapshot(task.taskId)?.pollInterval ?? DEFAULT_POLL_INTERVAL_MS;
        demandPerSecond += 1000 / Math.max(1, interval, floor, task.backoffMs);
      }
    }
    return { ...conn.scheduler.stats(), liveTasks, demandPerSecond };
  }

  private queueTraffic(event: TrafficEvent): void {
    this.traffic.push(forTrafficLog(event));
    if (this.traffic.length > MAX_PENDING_TRAFFIC * 2) {
      const drop = this.traffic.length - MAX_PENDING_TRAFFIC;
      this.traffic.splice(0, drop);
      this.trafficDropped += drop;
    }
    this.schedule();
  }

  private queueInbox(event: InboxEvent): void {
    this.inbox.push(event);
    if (this.inbox.length > MAX_PENDING_INBOX) this.inbox.splice(0, this.inbox.length - MAX_PENDING_INBOX);
    this.schedule();
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

  /** Sends soon, if the page has taken the last batch; otherwise changes keep coalescing here. */
  private schedule(): void {
    if (!this.credit || this.flushTimer !== undefined) return;
    // With hundreds of tasks, a batch every frame costs the page more than anyone sees (bench:ui): then
    // batches are spaced out, and each carries more.
    const many = (this.current?.tracker.store.getState().order.length ?? 0) > MANY_TASKS;
    const wait = many ? Math.max(0, this.lastFlushAt + BUSY_BATCH_GAP_MS - Date.now()) : 0;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      if (this.credit) this.flush(false);
    }, wait);
  }

  /** `force`: send now whatever the credit (before a reply, so the page sees what the command did). */
  private flush(force: boolean): void {
    const batch = this.takeBatch();
    if (!batch) return;
    this.lastFlushAt = Date.now();
    if (!this.send(batch)) {
      if (!force) this.credit = false;
      return;
    }
    // Something in the batch cannot be copied to the page (a receiver's value no copy can follow): send the
    // rest without the receiver's bodies, so the page keeps getting news, and say it in the log.
    const slim: Batch = {
      ...batch,
      snapshots: [],
      results: [],
      traffic: [],
      inbox: batch.inbox.filter((e) => e.kind === 'settled'),
      refused: 'Some data from the receiver could not be passed to the page and was dropped',
    };
    if (!this.send(slim) && !force) this.credit = false;
  }

  private takeBatch(): Batch | null {
    const conn = this.current;
    const tasks = conn && this.tasksDirty ? conn.collector.collect(conn.tracker.store.getState()) : null;
    this.tasksDirty = false;
    const snapshots: Batch['snapshots'] = [];
    const results: Batch['results'] = [];
    if (conn) {
      for (const taskId of conn.dirtySnapshots) {
        const snapshot = conn.tracker.snapshot(taskId);
        if (snapshot) snapshots.push([taskId, snapshot]);
      }
      for (const taskId of conn.dirtyResults) {
        const result = conn.queryClient.getQueryData<Batch['results'][number][1]>(
          queryKeys.taskResult(conn.id, taskId),
        );
        if (result) results.push([taskId, result]);
      }
      conn.dirtySnapshots.clear();
      conn.dirtyResults.clear();
    }
    const empty =
      !tasks &&
      snapshots.length === 0 &&
      results.length === 0 &&
      this.traffic.length === 0 &&
      this.inbox.length === 0 &&
      Object.keys(this.connectionNews).length === 0 &&
      !this.listStatus &&
      !this.polling &&
      !this.refused;
    if (empty) return null;
    const batch: Batch = {
      type: 'batch',
      connectionId: conn?.id ?? 0,
      tasks: tasks ?? undefined,
      snapshots,
      results,
      traffic: this.traffic,
      trafficDropped: this.trafficDropped,
      inbox: this.inbox,
      connection: Object.keys(this.connectionNews).length > 0 ? this.connectionNews : undefined,
      listStatus: this.listStatus,
      polling: this.polling,
      refused: this.refused,
    };
    this.traffic = [];
    this.trafficDropped = 0;
    this.inbox = [];
    this.connectionNews = {};
    this.listStatus = undefined;
    this.polling = undefined;
    this.refused = undefined;
    return batch;
  }
}

/**
 * A refused connection, an unknown host and a CORS refusal all reach a page as the same TypeError. Tell them
 * apart with evidence: a `no-cors` request that gets an (opaque) answer means the receiver is up and CORS is
 * the problem; one that fails too means nothing answers there. Only in a browser: Node has no CORS.
 */
async function diagnose(url: string, error: ClassifiedError): Promise<ClassifiedError> {
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin;
  if (error.kind !== 'cors-or-network' || !origin) return error;
  try {
    // no-cors allows only redirect: 'follow'; the probe reads nothing, so following is harmless.
    await fetch(url, {
      mode: 'no-cors',
      cache: 'no-store',
      signal: AbortSignal.timeout(5000),
    });
    return {
      ...error,
      message: `The receiver at ${url} answers, but does not allow this page's origin (${origin}) by CORS, or does not expose Mcp-Session-Id: allow the origin there.`,
    };
  } catch {
    return {
      ...error,
      message: `Nothing answers at ${url}: the connection was refused or the host is unknown. Is the receiver running?`,
    };
  }
}

const notConnected = (): { ok: false; error: ClassifiedError } => ({
  ok: false,
  error: { kind: 'other', message: 'Not connected to a receiver.' },
});
