import {
  ReceiverTasksApi,
  SessionHolder,
  TrafficTap,
  forTrafficLog,
  type ReceiverSession,
  type TrafficSeqCounter,
} from '../../mcp';
import { createQueryClient } from '../../tracker/queries';
import { RequestScheduler } from '../../tracker/request-scheduler';
import { TaskTracker } from '../../tracker/tracker';
import { DEFAULT_POLL_INTERVAL_MS } from '../../tracker/poll-timing';
import type { ConnectionNews, InboxEvent, PollingHealth, TrackerSettings } from '../messages';
import type { Outbox, TaskParts } from '../outbox';
import { PersonRequests } from '../person-requests';
import { CONNECTIONS_PER_ORIGIN } from './watch';
import type { ConnectCommand, Connection } from './connection';
import { TaskPartsMarks } from '../task-parts';
import type { PageTaskView } from '../task-views';

const HEALTH_EVERY_MS = 1000;

export interface OpenDeps {
  outbox: Outbox;
  /** The engine's one tap counter, shared by every connection. */
  trafficSeqs: TrafficSeqCounter;
  /** The latest settings the page sent, if any. */
  settings: TrackerSettings | undefined;
  news: (conn: Connection, news: ConnectionNews) => void;
  /** Whether the connection is still the engine's current one: a replaced one sends nothing more. */
  isCurrent: (conn: Connection) => boolean;
}

/**
 * The parts of one connection and the wires between them and the page: what the tracker, the query cache
 * and the traffic tap observe is marked here and taken for each batch by takeTaskParts. Kept apart from
 * host.ts so the host holds the lifecycle and the marks and their reader stay side by side.
 */
export function openConnection(command: ConnectCommand, deps: OpenDeps): Connection {
  const { outbox } = deps;
  const holder = new SessionHolder();
  const api = new ReceiverTasksApi(holder);
  // The notification stream holds one connection while it is open (connection-watch.ts resizes this).
  const scheduler = new RequestScheduler({ slots: CONNECTIONS_PER_ORIGIN - 2 });
  const queryClient = createQueryClient({ sharing: false });
  const conn: Connection = {
    id: command.connectionId,
    command,
    holder,
    tap: new TrafficTap(undefined, deps.trafficSeqs),
    api,
    scheduler,
    queryClient,
    // A settings change sent while this connect was on its way is newer than the one it carried.
    settings: deps.settings ?? command.settings,
    marks: new TaskPartsMarks(),
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
    settings: () => (conn.suspended || !holder.session ? { ...conn.settings, paused: true } : conn.settings),
    scheduler,
    sessionId: () => holder.session?.sessionId,
    // Newer receivers (2026-07-28) carry input requests in tasks/get and have no tasks/result to open.
    openResultForInput: () => !holder.describeServer().protocolVersion?.startsWith('2026'),
  });
  const inbox = (event: InboxEvent) => {
    outbox.addInbox(event);
    conn.history?.addInbox(event);
  };
  conn.people = new PersonRequests(conn.id, {
    inbox,
    refused: (note) => {
      outbox.refused = note;
      outbox.schedule();
    },
    note: (item, phase, detail) => {
      if (item.relatedTaskId && conn.tracker.isTracked(item.relatedTaskId))
        conn.tracker.noteInput(item.relatedTaskId, { method: item.method, phase, detail });
    },
  });
  api.v2026.listen.onRefused = (note) => deps.news(conn, { streamNote: note });
  const stopStore = conn.tracker.store.subscribe(() => {
    conn.marks.tasksChanged();
    conn.history?.tasksChanged();
    outbox.schedule();
  });
  // Snapshots and results live in the Worker's query cache; mark the ones that changed for the next batch.
  const stopCache = queryClient.getQueryCache().subscribe((event) => {
    const changed = conn.marks.cacheChanged(event);
    if (!changed) return;
    if (changed.result) conn.history?.resultChanged(changed.taskId);
    else conn.history?.snapshotChanged(changed.taskId);
    outbox.schedule();
  });
  const health = setInterval(() => {
    outbox.polling = pollingHealth(conn);
    outbox.schedule();
  }, HEALTH_EVERY_MS);
  const stopTap = listenToTap(conn, deps);
  conn.stop = () => {
    stopTap();
    stopStore();
    stopCache();
    clearInterval(health);
  };
  return conn;
}

function listenToTap(conn: Connection, { outbox, isCurrent }: OpenDeps): () => void {
  return conn.tap.subscribe((event) => {
    if (!isCurrent(conn)) return;
    const logged = forTrafficLog({ ...event, connectionId: conn.id });
    outbox.addTraffic(logged);
    conn.history?.addTraffic(logged);
  });
}

function pollingHealth(conn: Connection): PollingHealth {
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

/** The connection's changes for the next batch, of what the page shows (engine/task-views.ts). */
export function takeTaskParts(conn: Connection | null, view: PageTaskView): TaskParts {
  if (!conn) return { connectionId: 0, snapshots: [], results: [] };
  return conn.marks.take(conn.tracker, conn.queryClient, conn.id, view, Date.now());
}

/** After a reload into the same session, the questions still waiting there can be answered again. */
export function adoptWaiting(conn: Connection, session: ReceiverSession): void {
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
