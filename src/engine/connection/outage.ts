import { backoffForAttempt, classifyError, type ClassifiedError, type ReceiverSession } from '../../mcp';
import { isRetryable, stillAway, type Connection } from './connection';
import { answersAt } from './watch';
import type { ConnectReply, ConnectionNews, ConnectionStopReason, Health } from '../messages';

export interface OutageEvents {
  /** The connection's health changed: kept on it and told to the page. */
  health: (conn: Connection, health: Health) => void;
  news: (conn: Connection, news: ConnectionNews) => void;
  /** Opens a new session for the connection, its tasks asked about as those of `ended`. */
  reopen: (conn: Connection, ended: string | undefined) => void;
}

/**
 * A connection outlives the receiver going away: this is where a failed attempt waits and tries again, a lost
 * session is replaced, and a receiver that stopped answering is watched until it is back. Kept apart from
 * host.ts so the connect path reads straight through, and every backoff and health change during an outage
 * is in one place.
 */
export class OutageRecovery {
  constructor(private readonly events: OutageEvents) {}

  /** Says what went wrong and, when waiting can mend it, tries again after a backoff. */
  failed(
    conn: Connection,
    error: ClassifiedError,
    retry: () => Promise<ConnectReply>,
    reason?: ConnectionStopReason,
  ): { ok: false; error: ClassifiedError } {
    const now = Date.now();
    if (!isRetryable(error)) {
      this.events.health(conn, { status: 'error', since: now, error, ...(reason ? { reason } : {}) });
      return { ok: false, error };
    }
    conn.attempt++;
    const wait = backoffForAttempt(conn.attempt);
    const status = conn.health.status === 'session-lost' ? 'session-lost' : 'unreachable';
    this.events.health(conn, {
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

  /** The receiver no longer knows our session (it restarted, or expired it): a new one, by itself. */
  sessionLost(conn: Connection, session: ReceiverSession): void {
    if (conn.closed || conn.holder.session !== session) return;
    conn.unwatch?.();
    conn.tracker.sessionEnded({ final: false });
    conn.holder.set(null);
    conn.suspended = false;
    void session.abandon();
    this.events.health(conn, {
      status: 'session-lost',
      since: Date.now(),
      error: {
        kind: 'session-lost',
        message:
          'The receiver no longer knows this session (it restarted, or expired it): opening a new one; tasks it still knows go on.',
      },
    });
    this.events.reopen(conn, session.sessionId);
  }

  /**
   * The connection stops where only the person can move it on: the stdio server's process ended (Restart), or
   * the receiver wants a sign-in (Sign out, a 401). The session is let go and its timers stop: a task of an
   * ended process is over (final); one waiting for a sign-in is asked about again in the session after it.
   */
  stopped(
    conn: Connection,
    session: ReceiverSession,
    reason: ConnectionStopReason,
    error: ClassifiedError,
  ): void {
    if (conn.closed || conn.holder.session !== session) return;
    conn.unwatch?.();
    conn.unwatch = undefined;
    conn.tracker.sessionEnded({ final: reason === 'server-exited' });
    conn.holder.set(null);
    conn.suspended = false;
    conn.endedSession = session.sessionId;
    void session.abandon();
    this.events.health(conn, { status: 'error', reason, since: Date.now(), error });
    this.events.news(conn, { degraded: null });
  }

  /**
   * Requests keep failing at the network level. If nothing answers at the receiver's address either (or the
   * relay says it cannot reach it), polling is held and a ping with backoff finds out when it is back.
   */
  async checkReach(conn: Connection, session: ReceiverSession): Promise<void> {
    // A stdio server's bridge answers for it with what became of the process (exited, …): the failures say
    // so, and waiting on a ping would not bring it back; its console's Restart does.
    if (conn.suspended || conn.checkingReach || conn.closed || conn.command.stdio) return;
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
    this.events.health(conn, {
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
      this.events.health(conn, {
        ...conn.health,
        status: 'connected',
        since: Date.now(),
        error: undefined,
        retryAt: undefined,
        attempt: undefined,
        recoveredAt: Date.now(),
      });
      this.events.news(conn, { degraded: null });
    }, wait);
  }
}
