import {
  McpSession,
  TasksApi,
  TrafficTap,
  classifyError,
  serverTaskSupport,
  type ClassifiedError,
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
  PollingHealth,
  Replies,
  ToEngine,
  TrackerSettings,
} from './messages';
import type { QueryClient } from '@tanstack/query-core';
import { Outbox, type TaskParts } from './outbox';
import { PersonRequests } from './person-requests';
import { CONNECTIONS_PER_ORIGIN, diagnose, watchConnection } from './connection-watch';
import type { FromEngine } from './messages';

const HEALTH_EVERY_MS = 1000;

export interface HostOptions {
  /** The fetch the sessions use; Node tests pass none and get the global one. */
  fetch?: typeof fetch;
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
  people: PersonRequests;
  tasksDirty: boolean;
  dirtySnapshots: Set<string>;
  dirtyResults: Set<string>;
  stop: () => void;
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
  /** The latest settings the page sent, applied to every connection opened after. */
  private settings: TrackerSettings | undefined;
  private readonly outbox: Outbox;

  constructor(
    post: (message: FromEngine) => void,
    private readonly options: HostOptions = {},
  ) {
    this.outbox = new Outbox(post, {
      takeTaskParts: () => this.takeTaskParts(),
      taskCount: () => this.current?.tracker.store.getState().order.length ?? 0,
    });
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
        return conn ? conn.people.answer(command.key, command.outcome, command.reply) : false;
    }
  }

  private async connect(command: Extract<Command, { type: 'connect' }>): Promise<ConnectReply> {
    const seq = ++this.connectSeq;
    this.settings = command.settings;
    await this.closeCurrent();
    const tap = new TrafficTap();
    const stopTap = tap.subscribe((event) => {
      if (this.connectSeq === seq) this.outbox.addTraffic(event);
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
    // The notification stream holds one connection while it is open (connection-watch.ts resizes this).
    const scheduler = new RequestScheduler({ slots: CONNECTIONS_PER_ORIGIN - 2 });
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
      tasksDirty: false,
      dirtySnapshots: new Set(),
      dirtyResults: new Set(),
      stop: () => undefined,
      tracker: undefined as unknown as TaskTracker,
      people: undefined as unknown as PersonRequests,
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
    conn.people = new PersonRequests(conn.id, {
      inbox: (event) => this.outbox.addInbox(event),
      refused: (note) => {
        this.outbox.refused = note;
        this.outbox.schedule();
      },
      note: (item, phase, detail) => {
        if (item.relatedTaskId && conn.tracker.isTracked(item.relatedTaskId))
          conn.tracker.noteInput(item.relatedTaskId, { method: item.method, phase, detail });
      },
    });
    session.setServerRequestHandler(conn.people.handler);
    watchConnection(session, scheduler, (news) => {
      if (this.current !== conn) return;
      Object.assign(this.outbox.news, news);
      this.outbox.schedule();
    });
    const stopStore = conn.tracker.store.subscribe(() => {
      conn.tasksDirty = true;
      this.outbox.schedule();
    });
    // Snapshots and results live in the Worker's query cache; mark the ones that changed for the next batch.
    const stopCache = queryClient.getQueryCache().subscribe((event) => {
      if (event.type !== 'updated' || event.action.type !== 'success') return;
      const key = event.query.queryKey as readonly unknown[];
      const taskId = key[4];
      if (key[3] !== 'task' || typeof taskId !== 'string') return;
      (key[5] === 'result' ? conn.dirtyResults : conn.dirtySnapshots).add(taskId);
      this.outbox.schedule();
    });
    const health = setInterval(() => {
      this.outbox.polling = this.pollingHealth(conn);
      this.outbox.schedule();
    }, HEALTH_EVERY_MS);
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
    conn.people.dropAll();
    conn.queryClient.clear();
    // What was waiting for the page belongs to this connection: the next one starts clean.
    this.outbox.forgetConnection();
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
