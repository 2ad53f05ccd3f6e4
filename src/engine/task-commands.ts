import { classifyError, type ClassifiedError } from '../mcp';
import { callPlain, runTool } from './calls';
import type { Connection } from './connection/connection';
import type { Command, Replies } from './messages';
import type { Outbox } from './outbox';

type Reply = Replies[Command['type']];

type TaskCommandType =
  | 'signIn'
  | 'signOut'
  | 'confirmOrigin'
  | 'pendingSignIn'
  | 'follow'
  | 'flush'
  | 'listTools'
  | 'run'
  | 'callPlain'
  | 'track'
  | 'cancel'
  | 'refetchResult'
  | 'stopResult'
  | 'pollNow'
  | 'trackSeen'
  | 'answer';
export type TaskCommand = Extract<Command, { type: TaskCommandType }>;

/**
 * The commands that act on the live connection's tasks, calls, questions and sign-in — each one call into the
 * part that owns it. The host keeps the commands that open, close and replace connections.
 */
export async function taskCommand(conn: Connection | null, command: TaskCommand): Promise<Reply> {
  switch (command.type) {
    case 'signIn':
      await conn?.auth?.prepare();
      return null;
    case 'signOut':
      conn?.auth?.signOut();
      return null;
    case 'confirmOrigin':
      return conn?.auth?.confirmOrigin(command.origin, command.allow) ?? false;
    case 'pendingSignIn':
      return conn?.auth?.pendingTrip() ?? null;
    case 'follow':
      conn?.tracker.follow(command.taskId);
      return null;
    case 'flush':
      await conn?.history?.flush();
      return null;
    case 'listTools':
      if (!conn) throw new Error('Not connected');
      return conn.api.listTools();
    case 'run':
      return runTool(conn, command);
    case 'callPlain':
      return callPlain(conn, command);
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
    case 'answer':
      return conn ? conn.people.answer(command.key, command.outcome, command.reply) : false;
  }
}

/** The traffic log's commands act at once, in the order sent: a clear before a connect empties the log first. */
export function trafficCommand(outbox: Outbox, command: Command): { value: Reply } | undefined {
  switch (command.type) {
    case 'trafficMirror':
      outbox.setTrafficMirror(command.on);
      return { value: null };
    case 'trafficClear':
      outbox.clearTraffic(command.epoch);
      return { value: null };
    case 'trafficEvents':
      return { value: outbox.trafficEvents(command.connectionId) };
    case 'taskView':
      outbox.setTaskView(command.view);
      return { value: null };
    default:
      return undefined;
  }
}

/** Lists the receiver's tasks (tasks/list, every page) into the tracker; the page sees the list's state. */
export async function syncList(
  conn: Connection,
  outbox: Outbox,
  isCurrent: (conn: Connection) => boolean,
): Promise<ClassifiedError | null> {
  outbox.listStatus = { ...outbox.listStatus, loading: true, error: undefined };
  outbox.schedule();
  try {
    const stopped = await conn.tracker.syncList();
    if (isCurrent(conn)) outbox.listStatus = { loading: false, lastSyncedAt: Date.now(), stopped };
    return null;
  } catch (error) {
    const classified = classifyError(error, { method: 'tasks/list' });
    if (isCurrent(conn)) outbox.listStatus = { loading: false, error: classified };
    return classified;
  } finally {
    outbox.schedule();
  }
}
