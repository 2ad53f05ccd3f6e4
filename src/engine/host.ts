import {
  AnsweredAtOnce,
  ReceiverTasksApi,
  SessionHolder,
  TrafficTap,
  openSession,
  type ReceiverSession,
  type TrafficSeqCounter,
  backoffForAttempt,
  classifyError,
  forTrafficLog,
  isObject,
  limitJson,
  normaliseTask,
  relayFetch,
  type ClassifiedError,
  type Detection,
  type ResumeSession,
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
  Health,
  InboxEvent,
  PollingHealth,
  Replies,
  ToEngine,
  TrackerSettings,
} from './messages';
import { Outbox, type TaskParts } from './outbox';
import { PersonRequests } from './person-requests';
import { CONNECTIONS_PER_ORIGIN, answersAt, diagnose, watchConnection } from './connection-watch';
import { HistoryDb } from './history';
import { HistoryLink } from './history-link';
import { isRetryable, stillAway, type ConnectCommand, type Connection } from './connection';
import { CheckRunner } from './active-check-runner';
import type { FromEngine } from './messages';
import { ReplayHost } from './replay-host';
import type { ReplayOptions } from './trace/replay';

const HEALTH_EVERY_MS = 1000;

export interface HostOptions {
  /** The fetch the sessions use; Node tests pass none and get the global one. */
  fetch?: typeof fetch;
  /** Where history is kept; by default IndexedDB when there is one. Tests pass their own or null. */
  history?: () => Promise<HistoryDb | null>;
  /** The replay's real timers and settling, for tests. */
  replay?: ReplayOptions;
}

/**
 * The engine: everything that talks to a receiver, off the page's main thread. It owns the connection (the
 * SDK sessions one after another, SSE, the traffic tap), the tracker and its timers, the request budget, the
 * receiver's own requests and the history kept in IndexedDB; the page sends commands and gets batches of what
 * changed. A connection outlives its sessions: a receiver that restarts gets a new session, and its tasks
 * go on. Runs in a Worker in the browser and as a plain object in Node tests.
 */
export class EngineHost {
  private current: Connection | null = null;
  private connectSeq = 0;
  /** Every connection's tap numbers from this one counter: the page's log holds them all. */
  private readonly trafficSeqs: TrafficSeqCounter = { last: 0 };
  /** The latest settings the page sent, applied to every connection opened after. */
  private settings: TrackerSettings | undefined;
  private readonly outbox: Outbox;
  private readonly historyLink: HistoryLink;
  /** A trace played back with no receiver (replay-host.ts); while it runs, there is no live connection. */
  private readonly replays: ReplayHost;
  /** The last session this engine ended per receiver: its live tasks are asked about in the next one. */
  private readonly endedSessions = new Map<string, string>();
  /** The report card's active check, one at a time (active-check.ts). */
  private readonly checks = new CheckRunner();

  constructor(
    post: (message: FromEngine) => void,
    private readonly options: HostOptions = {},
  ) {
    this.outbox = new Outbox(post, {
      takeTaskParts: () => (this.replays.active ? this.replays.takeTaskParts() : this.takeTaskParts()),
      taskCount: () =>
        this.replays.active
          ? this.replays.taskCount()
          : (this.current?.tracker.store.getState().order.length ?? 0),
    });
    this.replays = new ReplayHost(
      this.outbox,
      async () => {
        this.connectSeq++;
        await this.closeCurrent(false);
      },
      options.replay,
    );
    this.historyLink = new HistoryLink(
      options.history ?? (() => HistoryDb.open().catch(() => null)),
      this.outbox,
      (conn, news) => this.news(conn, news),
    );
  }

  receive(message: ToEngine): void {
    if (message.type === 'ack') {
      this.outbox.ack();
      return;
    }
    const { id, command } = message;
    this.handle(command).then(
      (value) => this.outbox.reply(id, { value }),
      (error: unknown) =>
        this.outbox.reply(id, { failure: error instanceof Error ? error.message : String(error) }),
    );
  }

  private async handle(command: Command): Promise<Replies[Command['type']]> {
    const replayed = await this.replays.handle(command);
    if (replayed) return replayed.value;
    const conn = this.current;
    switch (command.type) {
      case 'replay':
      case 'replayCheck':
      case 'replaySeek':
      case 'replayControl':
      case 'replaySpeed':
        throw new Error('handled by the replay host');
      case 'connect':
        return this.connect(command);
      case 'disconnect':
        this.connectSeq++;
        await this.closeCurrent(command.end !== false);
        return null;
      case 'preserve':
        await this.historyLink.setPreserve(this.current, command.on);
        return null;
      case 'clearHistory':
        return conn ? this.historyLink.clear(conn) : [];
      case 'follow':
        conn?.tracker.follow(command.taskId);
        return null;
      case 'flush':
        await conn?.history?.flush();
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
          const answer = await conn.tracker.duringPlainCall(() =>
            conn.api.callTool(command.tool, command.args),
          );
          return { ok: true, answer };
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
      case 'checkReceiver':
        return this.checks.start(conn, command.tool, (check) => conn && this.news(conn, { check }));
      case 'stopCheck':
        return this.checks.stop();
      case 'resend': {
        const session = conn?.holder.session;
        if (!session) return notConnected();
        try {
          // Through the current session: its id, headers and tap, so the answer shows in the traffic as well.
          const result = await session.request(command.method, command.params);
          // The connection may have been closed or replaced while the call was out: its tracker is gone.
          if (command.method === 'tools/call' && conn && !conn.closed && this.current === conn)
            this.trackResent(conn, command.params, result);
          return { ok: true, result };
        } catch (error) {
          return { ok: false, error: classifyError(error, { method: command.method }) };
        }
      }
      case 'answer':
        return conn ? conn.people.answer(command.key, command.outcome, command.reply) : false;
    }
  }

  /**
   * Opens the connection: its history first (shown at once, whatever the receiver does), then a session —
   * this tab's earlier one when the page kept it and the receiver still knows it, else a new one.
   */
  private async connect(command: ConnectCommand): Promise<ConnectReply> {
    const seq = ++this.connectSeq;
    this.settings = command.settings;
    if (command.preserve !== undefined) this.historyLink.preserve = command.preserve;
    await this.closeCurrent(false);
    if (seq !== this.connectSeq) return { ok: false, stale: true };
    const conn = this.open(command);
    this.setHealth(conn, { status: 'connecting', since: Date.now() });
    if (this.historyLink.preserve) await this.historyLink.restore(conn);
    if (seq !== this.connectSeq || conn.closed) return { ok: false, stale: true };
    const ended = command.resume?.sessionId ?? this.endedSessions.get(command.url);
    return this.establish(conn, command.resume, ended);
  }

  /** One attempt at a session; a failure that time can mend is tried again with backoff, for as long as the page is open. */
  private async establish(
    conn: Connection,
    resume: ResumeSession | undefined,
    ended: string | undefined,
  ): Promise<ConnectReply> {
    conn.retryTimer = undefined;
    const { url, headers } = conn.command;
    // After the first session, the generation is known: a new session after a loss does not probe again.
    const era = conn.knownEra ?? conn.command.era;
    const base = { url, headers, tap: conn.tap, fetch: this.fetchFor(conn), era };
    let session: ReceiverSession | undefined;
    let detectedBy: Detection = 'resumed';
    if (resume) {
      try {
        session = (await openSession({ ...base, resume })).session;
      } catch (error) {
        const classified = classifyError(error, { method: 'ping' });
        if (conn.closed) return { ok: false, stale: true };
        if (stillAway(classified) && classified.kind !== 'session-lost')
          return this.failed(conn, classified, () => this.establish(conn, resume, ended));
        // The receiver answered and does not know the session any more: a new one, and its tasks are asked about.
      }
    }
    if (!session) {
      try {
        ({ session, detectedBy } = await openSession(base));
      } catch (error) {
        if (conn.closed) return { ok: false, stale: true };
        const classified = classifyError(error, { method: 'initialize', url });
        const diagnosed =
          conn.command.relay || conn.everConnected ? classified : await diagnose(url, classified);
        return this.failed(conn, diagnosed, () => this.establish(conn, undefined, ended));
      }
    }
    if (conn.closed) {
      // Another connect (or a disconnect) came while this one was on its way: this session is nobody's.
      await (session.resumed ? session.abandon() : session.close());
      return { ok: false, stale: true };
    }
    this.install(conn, session);
    conn.everConnected = true;
    if (conn.knownEra === undefined) conn.detectedBy = detectedBy;
    conn.knownEra = session.era;
    conn.tracker.sessionReady(ended);
    this.adoptWaiting(conn, session);
    const server = session.describeServer();
    const support = conn.api.support;
    const wasDown = conn.health.status !== 'connecting';
    this.setHealth(conn, {
      status: 'connected',
      since: Date.now(),
      server,
      support,
      sessionId: session.sessionId,
      protocolVersion: server.protocolVersion,
      era: session.era,
      detectedBy: conn.detectedBy,
      resumed: session.resumed,
      recoveredAt: wasDown ? Date.now() : undefined,
    });
    conn.history?.setMeta({ server });
    void (async () => {
      if (support.list) await this.syncList(conn);
      // A deep link (?task=) to a task neither history nor tasks/list brought: follow it, so the page says
      // what became of it. One history brought from another session is left for the person to follow.
      const follow = conn.command.followTaskId;
      if (follow && this.current === conn && !conn.tracker.isTracked(follow))
        conn.tracker.track(follow, { origin: 'manual' });
    })();
    return { ok: true, server, support, sessionId: session.sessionId, resumed: session.resumed };
  }

  /** After a reload into the same session, the questions still waiting there can be answered again. */
  private adoptWaiting(conn: Connection, session: ReceiverSession): void {
    const waiting = conn.waitingFromHistory;
    conn.waitingFromHistory = [];
    if (!session.resumed) return;
    const tasks = conn.tracker.store.getState().tasks;
    for (const request of waiting) {
      const task = request.relatedTaskId ? tasks.get(request.relatedTaskId) : undefined;
      if (task?.lifecycle !== 'live' || task.sessionId !== session.sessionId) continue;
      conn.people.adopt(
        request,
        (reply) => void session.respond(request.requestId, reply).catch(() => undefined),
      );
    }
  }

  /** Says what went wrong and, when waiting can mend it, tries again after a backoff. */
  private failed(
    conn: Connection,
    error: ClassifiedError,
    retry: () => Promise<ConnectReply>,
  ): { ok: false; error: ClassifiedError } {
    const now = Date.now();
    if (!isRetryable(error)) {
      this.setHealth(conn, { status: 'error', since: now, error });
      return { ok: false, error };
    }
    conn.attempt++;
    const wait = backoffForAttempt(conn.attempt);
    const status = conn.health.status === 'session-lost' ? 'session-lost' : 'unreachable';
    this.setHealth(conn, {
      status,
      since: conn.health.status === status ? conn.health.since : now,
      error,
      retryAt: now + wait,
      attempt: conn.attempt,
    });
    conn.retryTimer = setTimeout(() => {
      if (!conn.closed) void retry();
    }, wait);
    return { ok: false, error };
  }

  private fetchFor(conn: Connection): typeof fetch | undefined {
    const base = this.options.fetch ?? globalThis.fetch.bind(globalThis);
    return conn.command.relay ? relayFetch(base, conn.command.relay) : this.options.fetch;
  }

  private install(conn: Connection, session: ReceiverSession): void {
    conn.holder.set(session);
    conn.attempt = 0;
    // 2026-07-28 has no GET stream: only a listen stream, which says so when it opens (connection-watch.ts).
    if (session.era === '2026-07-28') conn.scheduler.setSlots(CONNECTIONS_PER_ORIGIN - 1);
    session.setServerRequestHandler(conn.people.handler);
    conn.unwatch = watchConnection(session, conn.scheduler, {
      news: (news) => this.news(conn, news),
      sessionLost: () => this.sessionLost(conn, session),
      networkFailing: () => void this.checkReach(conn, session),
    });
  }

  /** The receiver no longer knows our session (it restarted, or expired it): a new one, by itself. */
  private sessionLost(conn: Connection, session: ReceiverSession): void {
    if (conn.closed || conn.holder.session !== session) return;
    conn.unwatch?.();
    conn.tracker.sessionEnded({ final: false });
    conn.holder.set(null);
    conn.suspended = false;
    void session.abandon();
    this.setHealth(conn, {
      status: 'session-lost',
      since: Date.now(),
      error: {
        kind: 'session-lost',
        message:
          'The receiver no longer knows this session (it restarted, or expired it): opening a new one; tasks it still knows go on.',
      },
    });
    void this.establish(conn, undefined, session.sessionId);
  }

  /**
   * Requests keep failing at the network level. If nothing answers at the receiver's address either (or the
   * relay says it cannot reach it), polling is held and a ping with backoff finds out when it is back.
   */
  private async checkReach(conn: Connection, session: ReceiverSession): Promise<void> {
    if (conn.suspended || conn.checkingReach || conn.closed) return;
    conn.checkingReach = true;
    const answers = conn.command.relay ? false : await answersAt(conn.command.url);
    conn.checkingReach = false;
    if (answers || conn.closed || conn.holder.session !== session) return;
    conn.suspended = true;
    conn.tracker.settingsChanged();
    this.awaitReturn(conn, session, 1);
  }

  private awaitReturn(conn: Connection, session: ReceiverSession, attempt: number): void {
    const wait = backoffForAttempt(attempt);
    const since = conn.health.status === 'unreachable' ? conn.health.since : Date.now();
    this.setHealth(conn, {
      ...conn.health,
      status: 'unreachable',
      since,
      error: {
        kind: 'cors-or-network',
        diagnosis: 'unreachable',
        message: `The receiver at ${conn.command.url} stopped answering (refused or dropped); it answered before, so this is not CORS. Polling waits until it is back.`,
      },
      retryAt: Date.now() + wait,
      attempt,
      recoveredAt: undefined,
    });
    conn.retryTimer = setTimeout(async () => {
      if (conn.closed || conn.holder.session !== session) return;
      try {
        await session.request('ping');
      } catch (error) {
        const classified = classifyError(error, { method: 'ping' });
        // A lost session is taken up by sessionLost (the transport said so); anything else is still away.
        // Without a session (2026-07-28, sessionless receivers) nothing can be lost: a 404 is still away.
        if (conn.holder.session !== session) return;
        if (classified.kind === 'session-lost' && session.sessionId !== undefined) return;
        if (stillAway(classified)) return this.awaitReturn(conn, session, attempt + 1);
      }
      if (conn.closed || conn.holder.session !== session) return;
      conn.suspended = false;
      conn.tracker.resumeAfterOutage();
      this.setHealth(conn, {
        ...conn.health,
        status: 'connected',
        since: Date.now(),
        error: undefined,
        retryAt: undefined,
        attempt: undefined,
        recoveredAt: Date.now(),
      });
      this.news(conn, { degraded: null });
    }, wait);
  }

  private setHealth(conn: Connection, health: Health): void {
    conn.health = health;
    this.news(conn, { health });
  }

  private news(conn: Connection, news: ConnectionNews): void {
    if (this.current !== conn) return;
    Object.assign(this.outbox.news, news);
    this.outbox.schedule();
  }

  private open(command: ConnectCommand): Connection {
    const holder = new SessionHolder();
    const api = new ReceiverTasksApi(holder);
    // The notification stream holds one connection while it is open (connection-watch.ts resizes this).
    const scheduler = new RequestScheduler({ slots: CONNECTIONS_PER_ORIGIN - 2 });
    const queryClient = createQueryClient();
    const conn: Connection = {
      id: command.connectionId,
      command,
      holder,
      tap: new TrafficTap(undefined, this.trafficSeqs),
      api,
      scheduler,
      queryClient,
      collector: new TaskChangeCollector(),
      // A settings change sent while this connect was on its way is newer than the one it carried.
      settings: this.settings ?? command.settings,
      tasksDirty: false,
      dirtySnapshots: new Set(),
      dirtyResults: new Set(),
      health: { status: 'connecting', since: Date.now() },
      suspended: false,
      checkingReach: false,
      everConnected: false,
      attempt: 0,
      closed: false,
      stop: () => undefined,
      waitingFromHistory: [],
      tracker: undefined as unknown as TaskTracker,
      people: undefined as unknown as PersonRequests,
    };
    conn.tracker = new TaskTracker({
      api,
      queryClient,
      connectionId: conn.id,
      // While the receiver is away or between sessions, polls wait (and say nothing) instead of piling
      // errors on every task; sessionReady and the return from an outage schedule them again.
      settings: () =>
        conn.suspended || !holder.session ? { ...conn.settings, paused: true } : conn.settings,
      scheduler,
      sessionId: () => holder.session?.sessionId,
      // Newer receivers (2026-07-28) carry input requests in tasks/get and have no tasks/result to open.
      openResultForInput: () => !holder.describeServer().protocolVersion?.startsWith('2026'),
    });
    const inbox = (event: InboxEvent) => {
      this.outbox.addInbox(event);
      conn.history?.addInbox(event);
    };
    conn.people = new PersonRequests(conn.id, {
      inbox,
      refused: (note) => {
        this.outbox.refused = note;
        this.outbox.schedule();
      },
      note: (item, phase, detail) => {
        if (item.relatedTaskId && conn.tracker.isTracked(item.relatedTaskId))
          conn.tracker.noteInput(item.relatedTaskId, { method: item.method, phase, detail });
      },
    });
    api.v2026.listen.onRefused = (note) => this.news(conn, { streamNote: note });
    const stopStore = conn.tracker.store.subscribe(() => {
      conn.tasksDirty = true;
      conn.history?.tasksChanged();
      this.outbox.schedule();
    });
    // Snapshots and results live in the Worker's query cache; mark the ones that changed for the next batch.
    const stopCache = queryClient.getQueryCache().subscribe((event) => {
      if (event.type !== 'updated' || event.action.type !== 'success') return;
      const key = event.query.queryKey as readonly unknown[];
      const taskId = key[4];
      if (key[3] !== 'task' || typeof taskId !== 'string') return;
      if (key[5] === 'result') {
        conn.dirtyResults.add(taskId);
        conn.history?.resultChanged(taskId);
      } else {
        conn.dirtySnapshots.add(taskId);
        conn.history?.snapshotChanged(taskId);
      }
      this.outbox.schedule();
    });
    const health = setInterval(() => {
      this.outbox.polling = this.pollingHealth(conn);
      this.outbox.schedule();
    }, HEALTH_EVERY_MS);
    const stopTap = this.listenToTap(conn);
    conn.stop = () => {
      stopTap();
      stopStore();
      stopCache();
      clearInterval(health);
    };
    this.current = conn;
    return conn;
  }

  private listenToTap(conn: Connection): () => void {
    return conn.tap.subscribe((event) => {
      if (this.current !== conn) return;
      const owned = { ...event, connectionId: conn.id };
      this.outbox.addTraffic(owned);
      conn.history?.addTraffic(forTrafficLog(owned));
    });
  }

  /**
   * `end`: the person disconnected, so the session is ended on the receiver (DELETE). Otherwise (a new
   * connect) it is left to expire: the receiver may still hold tasks someone wants, and a reload resumes it.
   */
  private async closeCurrent(end: boolean): Promise<void> {
    const conn = this.current;
    if (!conn) return;
    clearTimeout(conn.retryTimer);
    this.checks.stop();
    conn.unwatch?.();
    const session = conn.holder.session;
    // Said while the page still listens to this connection: its tasks show as ended with their session.
    // Only Disconnect is final; after a new connect, live tasks are asked about in the next session.
    conn.tracker.sessionEnded({ final: end });
    // The page has moved on: a health state still pending would show this connection as current again.
    delete this.outbox.news.health;
    this.outbox.sendNow();
    conn.closed = true;
    this.current = null;
    if (session?.sessionId) this.endedSessions.set(conn.command.url, session.sessionId);
    await conn.history?.dispose();
    conn.stop();
    conn.tracker.dispose();
    conn.api.dispose();
    conn.scheduler.close();
    conn.people.dropAll();
    conn.queryClient.clear();
    // What was waiting for the page belongs to this connection: the next one starts clean.
    this.outbox.forgetConnection();
    conn.holder.set(null);
    if (session) await (end ? session.close() : session.abandon());
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
        // Kept with the task (and in history), capped: arguments are the person's, but a form can be large.
        call: {
          tool: tool.name,
          args: limitJson(args, { maxDepth: 16, maxNodes: 2000 }).value as Record<string, unknown>,
          ttl,
        },
        initial: created,
        source: 'create',
        sentAt,
      });
      return { ok: true, taskId: created.value.taskId };
    } catch (error) {
      if (error instanceof AnsweredAtOnce) return { ok: true, answer: error.answer };
      return { ok: false, error: classifyError(error, { method: 'tools/call' }) };
    }
  }

  /** A resent task-augmented call started a task like any other: it belongs in the task list, followed. */
  private trackResent(conn: Connection, params: unknown, result: unknown) {
    if (!isObject(result) || !(isObject(result.task) || result.resultType === 'task')) return;
    const created = normaliseTask(result, { era: conn.knownEra });
    if (!created.value) return;
    const tool = isObject(params) && typeof params.name === 'string' ? params.name : undefined;
    // The call as sent, so Run again repeats it like any task run from the tools list.
    const args = isObject(params) && isObject(params.arguments) ? params.arguments : {};
    const task = isObject(params) && isObject(params.task) ? params.task : undefined;
    const ttl = typeof task?.ttl === 'number' ? task.ttl : undefined;
    conn.tracker.track(created.value.taskId, {
      origin: 'created',
      ...(tool ? { tool, call: { tool, args, ...(ttl !== undefined ? { ttl } : {}) } } : {}),
      initial: created,
      source: 'create',
    });
  }

  private async syncList(conn: Connection): Promise<ClassifiedError | null> {
    this.outbox.listStatus = { ...this.outbox.listStatus, loading: true, error: undefined };
    this.outbox.schedule();
    try {
      const stopped = await conn.tracker.syncList();
      if (this.current === conn)
        this.outbox.listStatus = { loading: false, lastSyncedAt: Date.now(), stopped };
      return null;
    } catch (error) {
      const classified = classifyError(error, { method: 'tasks/list' });
      if (this.current === conn) this.outbox.listStatus = { loading: false, error: classified };
      return classified;
    } finally {
      this.outbox.schedule();
    }
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

  /** The current connection's changes for the next batch: task records, snapshots, results. */
  private takeTaskParts(): TaskParts {
    const conn = this.current;
    if (!conn) return { connectionId: 0, snapshots: [], results: [] };
    const tasks = conn.tasksDirty
      ? (conn.collector.collect(conn.tracker.store.getState()) ?? undefined)
      : undefined;
    conn.tasksDirty = false;
    const snapshots: Batch['snapshots'] = [];
    const results: Batch['results'] = [];
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
    return { connectionId: conn.id, tasks, snapshots, results };
  }
}

const notConnected = (): { ok: false; error: ClassifiedError } => ({
  ok: false,
  error: { kind: 'other', message: 'Not connected to a receiver.' },
});
