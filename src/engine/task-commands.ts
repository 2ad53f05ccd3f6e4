import { ClassifiedFailure, classifyError, type ClassifiedError } from '../mcp';
import { callPlain, runTool } from './calls';
import type { CommandPart } from './commands';
import type { Connection } from './connection/connection';
import type { Outbox } from './outbox';

/**
 * The commands that act on the live connection's tasks, calls, questions and sign-in — each one call into the
 * part that owns it. The host keeps the commands that open, close, replace or stop connections (Sign out).
 */
export function taskCommands(current: () => Connection | null) {
  return {
    signIn: async () => {
      await current()?.auth?.prepare();
      return null;
    },
    confirmOrigin: async ({ origin, allow }) => current()?.auth?.confirmOrigin(origin, allow) ?? false,
    pendingSignIn: async () => current()?.auth?.pendingTrip() ?? null,
    follow: async ({ taskId }) => {
      current()?.tracker.follow(taskId);
      return null;
    },
    flush: async () => {
      await current()?.history?.flush();
      return null;
    },
    listTools: async () => {
      const conn = current();
      if (!conn) throw new ClassifiedFailure({ kind: 'other', message: 'Not connected to a receiver.' });
      try {
        return await conn.api.listTools();
      } catch (error) {
        throw new ClassifiedFailure(
          classifyError(error, { method: 'tools/list', signIn: conn.auth?.needsSignIn }),
        );
      }
    },
    run: (command) => runTool(current(), command),
    callPlain: (command) => callPlain(current(), command),
    track: async (command) => {
      const conn = current();
      const taskId = command.taskId.trim();
      if (!conn || taskId === '' || taskId.length > 512) return false;
      conn.tracker.track(taskId, { origin: 'manual' });
      return true;
    },
    cancel: async ({ taskId }) => {
      const conn = current();
      return conn ? conn.tracker.cancel(taskId) : null;
    },
    refetchResult: async ({ taskId }) => {
      current()?.tracker.refetchResult(taskId);
      return null;
    },
    stopResult: async ({ taskId }) => current()?.tracker.stopResult(taskId) ?? false,
    pollNow: async ({ taskId }) => {
      current()?.tracker.pollNow(taskId);
      return null;
    },
    trackSeen: async () => current()?.tracker.trackSeen() ?? 0,
    answer: async ({ key, outcome, reply }) => current()?.people.answer(key, outcome, reply) ?? false,
  } satisfies CommandPart;
}

/**
 * What of the traffic log and of the tasks crosses to the page: each acts on the outbox alone and at once, so a
 * clear sent before a connect empties the log before it.
 */
export function outboxCommands(outbox: Outbox) {
  return {
    trafficMirror: async ({ on }) => {
      outbox.setTrafficMirror(on);
      return null;
    },
    trafficClear: async ({ epoch }) => {
      outbox.clearTraffic(epoch);
      return null;
    },
    trafficEvents: async ({ connectionId }) => outbox.trafficEvents(connectionId),
    trafficWindow: async ({ window }) => {
      outbox.setTrafficWindow(window);
      return null;
    },
    taskView: async ({ view }) => {
      outbox.setTaskView(view);
      return null;
    },
  } satisfies CommandPart;
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
