import {
  type AuthCallback,
  openSession,
  type ReceiverSession,
  type TrafficSeqCounter,
  classifyError,
  relayFetch,
  StdioBridgeError,
  stdioFetch,
  type Detection,
  type ResumeSession,
} from '../mcp';
import type { ConnectReply, ConnectionNews, Health, ToEngine, TrackerSettings } from './messages';
import { commandTable, dispatch, type CommandPart, type CommandTable } from './commands';
import { Outbox } from './outbox';
import { CONNECTIONS_PER_ORIGIN, diagnose, watchConnection } from './connection/watch';
import { HistoryDb } from './history';
import { HistoryLink } from './history/link';
import { stillAway, type ConnectCommand, type Connection } from './connection/connection';
import { adoptWaiting, openConnection, takeTaskParts } from './connection/open';
import { OutageRecovery } from './connection/outage';
import { SignIns } from './connection/sign-ins';
import { resend } from './calls';
import { outboxCommands, syncList, taskCommands } from './task-commands';
import { CheckRunner } from './active-check/runner';
import type { Timing } from './active-check/probe';
import type { FromEngine } from './messages';

import { ReplayHost } from './trace/replay-host';
import { ObserveHost } from './observe/observe-host';
import type { ReplayOptions } from './trace/replay';

const SIGN_IN_MESSAGE = 'The receiver asks you to sign in (HTTP 401 with a Bearer challenge): use Sign in.';

export interface HostOptions {
  /** The fetch the sessions use; Node tests pass none and get the global one. */
  fetch?: typeof fetch;
  /** Where history is kept; by default IndexedDB when there is one. Tests pass their own or null. */
  history?: () => Promise<HistoryDb | null>;
  /** The replay's real timers and settling, for tests. */
  replay?: ReplayOptions;
  /** The active check's waits, shortened by tests; the defaults (probe.ts TIMING) are what a person gets. */
  checkTiming?: Partial<Timing>;
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
  /** The connection Disconnect closed: the page still scrolls, filters and opens its tasks until the next one. */
  private closed: Connection | null = null;
  private connectSeq = 0;
  /** Every connection's tap numbers from this one counter: the page's log holds them all. */
  private readonly trafficSeqs: TrafficSeqCounter = { last: 0 };
  /** The latest settings the page sent, applied to every connection opened after. */
  private settings: TrackerSettings | undefined;
  private readonly outbox: Outbox;
  private readonly historyLink: HistoryLink;
  /** A trace played back with no receiver (replay-host.ts); while it runs, there is no live connection. */
  private readonly replays: ReplayHost;
  /** A client's session watched through Taskscope's proxy (observe/observe-host.ts); passive, as a replay. */
  private readonly observes: ObserveHost;
  /** Every command's handler, as a running replay or observing changes them (commands.ts). */
  private readonly commands: CommandTable;
  /** The last session this engine ended per receiver: its live tasks are asked about in the next one. */
  private readonly endedSessions = new Map<string, string>();
  private readonly signIns = new SignIns();
  /** The report card's active check, one at a time (active-check.ts). */
  private readonly checks: CheckRunner;
  /** Failed attempts, lost sessions and a receiver gone away, each waited out with backoff (outage.ts). */
  private readonly outages = new OutageRecovery({
    health: (conn, health) => this.setHealth(conn, health),
    news: (conn, news) => this.news(conn, news),
    reopen: (conn, ended) => void this.establish(conn, undefined, ended),
  });

  constructor(
    post: (message: FromEngine) => void,
    private readonly options: HostOptions = {},
  ) {
    this.checks = new CheckRunner(options.checkTiming);
    this.outbox = new Outbox(post, {
      takeTaskParts: (view) =>
        this.replays.active
          ? this.replays.takeTaskParts(view)
          : this.observes.active
            ? this.observes.takeTaskParts(view)
            : takeTaskParts(this.current ?? this.closed, view),
      taskCount: () =>
        this.replays.active
          ? this.replays.taskCount()
          : this.observes.active
            ? this.observes.taskCount()
            : (this.current?.tracker.store.getState().order.length ?? 0),
    });
    const closeLive = async () => {
      this.connectSeq++;
      await this.closeCurrent(false);
      this.forgetClosed();
    };
    this.replays = new ReplayHost(
      this.outbox,
      async () => {
        this.observes.stop();
        await closeLive();
      },
      options.replay,
    );
    this.observes = new ObserveHost(
      this.outbox,
      this.trafficSeqs,
      async () => {
        this.replays.stop();
        await closeLive();
      },
      () => this.options.fetch ?? globalThis.fetch.bind(globalThis),
    );
    this.commands = this.observes.over(
      this.replays.over(
        commandTable(
          this.connectionCommands(),
          taskCommands(() => this.current),
          outboxCommands(this.outbox),
          this.replays.commands,
          this.observes.commands,
        ),
      ),
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
    void dispatch(this.commands, command).then((outcome) => this.outbox.reply(id, outcome));
  }

  /** The commands that open, close and replace connections, and act on the connection as a whole. */
  private connectionCommands() {
    const current = () => this.current;
    const isCurrent = (conn: Connection) => this.current === conn;
    return {
      connect: (command) => this.connect(command),
      authCallback: ({ callback }) => this.authCallback(current(), callback),
      rememberSignIn: async ({ on }) => {
        const conn = current();
        if (conn) {
          conn.rememberSignIn = on;
          this.news(conn, { rememberedSignIn: on ? (conn.auth?.remembered() ?? null) : null });
        }
        return null;
      },
      signOut: async () => {
        const conn = current();
        conn?.auth?.signOut();
        // Without a token the session can do nothing: the connection waits for the next sign-in.
        if (conn?.holder.session)
          this.outages.stopped(conn, conn.holder.session, 'sign-in-needed', {
            kind: 'auth',
            message: 'Signed out: sign in again to go on with this receiver.',
          });
        return null;
      },
      disconnect: async ({ end }) => {
        this.connectSeq++;
        await this.closeCurrent(end !== false);
        return null;
      },
      preserve: async ({ on }) => {
        await this.historyLink.setPreserve(current(), on);
        return null;
      },
      clearHistory: async () => {
        const conn = current();
        return conn ? this.historyLink.clear(conn) : [];
      },
      settings: async ({ settings }) => {
        const conn = current();
        this.settings = settings;
        if (conn) {
          conn.settings = settings;
          conn.tracker.settingsChanged();
        }
        return null;
      },
      syncList: async () => {
        const conn = current();
        return conn ? syncList(conn, this.outbox, isCurrent) : null;
      },
      checkReceiver: async ({ tool, args }) => {
        const conn = current();
        return this.checks.start(conn, tool, args, (check) => conn && this.news(conn, { check }));
      },
      stopCheck: async () => this.checks.stop(),
      resend: (command) => resend(current(), command, isCurrent),
    } satisfies CommandPart;
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
    const returning = command.auth?.returning;
    if (returning) {
      // Back from a same-tab sign-in: the code is exchanged before the first request, which then carries the token.
      this.fetchFor(conn);
      if (conn.auth?.resumeTrip(returning.trip)) await conn.auth.finish(returning.callback);
      if (seq !== this.connectSeq || conn.closed) return { ok: false, stale: true };
    }
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
          return this.outages.failed(conn, classified, () => this.establish(conn, resume, ended));
        // The receiver answered and does not know the session any more: a new one, and its tasks are asked about.
      }
    }
    if (!session) {
      try {
        ({ session, detectedBy } = await openSession(base));
      } catch (error) {
        if (conn.closed) return { ok: false, stale: true };
        const classified = classifyError(error, { method: 'initialize', url });
        if (conn.auth?.needsSignIn && classified.kind === 'auth')
          return this.outages.failed(
            conn,
            { ...classified, message: SIGN_IN_MESSAGE },
            () => this.establish(conn, undefined, ended),
            'sign-in-needed',
          );
        const diagnosed =
          conn.command.relay || conn.command.stdio || conn.everConnected
            ? classified
            : await diagnose(url, classified);
        // The bridge answering for a stdio server that has ended: a new page connection (Restart) is the way on.
        const exited = error instanceof StdioBridgeError && error.status === 410;
        return this.outages.failed(
          conn,
          diagnosed,
          () => this.establish(conn, undefined, ended),
          exited ? 'server-exited' : undefined,
        );
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
    adoptWaiting(conn, session);
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
      if (support.list) await syncList(conn, this.outbox, (c) => this.current === c);
      // A deep link (?task=) to a task neither history nor tasks/list brought: follow it, so the page says
      // what became of it. One history brought from another session is left for the person to follow.
      const follow = conn.command.followTaskId;
      if (follow && this.current === conn && !conn.tracker.isTracked(follow))
        conn.tracker.track(follow, { origin: 'manual' });
    })();
    return { ok: true, server, support, sessionId: session.sessionId, resumed: session.resumed };
  }

  private fetchFor(conn: Connection): typeof fetch | undefined {
    const base = this.options.fetch ?? globalThis.fetch.bind(globalThis);
    if (conn.command.stdio) return stdioFetch(base, conn.command.stdio);
    const direct = conn.command.relay ? relayFetch(base, conn.command.relay) : base;
    return this.signIns.fetchFor(conn, direct, (news) => this.news(conn, news));
  }

  /** The person signed in: with a token, the connection that was refused tries again at once. */
  private async authCallback(conn: Connection | null, callback: AuthCallback): Promise<boolean> {
    if (!conn?.auth) return false;
    const ok = await conn.auth.finish(callback);
    if (ok && !conn.closed && conn.health.status !== 'connected' && this.current === conn) {
      clearTimeout(conn.retryTimer);
      void this.establish(conn, undefined, conn.endedSession ?? this.endedSessions.get(conn.command.url));
    }
    return ok;
  }

  private install(conn: Connection, session: ReceiverSession): void {
    conn.holder.set(session);
    conn.attempt = 0;
    // 2026-07-28 has no GET stream: only a listen stream, which says so when it opens (connection-watch.ts).
    if (session.era === '2026-07-28') conn.scheduler.setSlots(CONNECTIONS_PER_ORIGIN - 1);
    session.setServerRequestHandler(conn.people.handler);
    conn.unwatch = watchConnection(session, conn.scheduler, {
      news: (news) => this.news(conn, news),
      sessionLost: () => this.outages.sessionLost(conn, session),
      networkFailing: () => void this.outages.checkReach(conn, session),
      serverExited: (error) => this.outages.stopped(conn, session, 'server-exited', error),
      refused401: (error) => {
        if (conn.auth?.needsSignIn)
          this.outages.stopped(conn, session, 'sign-in-needed', { ...error, message: SIGN_IN_MESSAGE });
      },
    });
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
    const conn = openConnection(command, {
      outbox: this.outbox,
      trafficSeqs: this.trafficSeqs,
      settings: this.settings,
      news: (c, news) => this.news(c, news),
      isCurrent: (c) => this.current === c,
    });
    this.forgetClosed();
    this.current = conn;
    return conn;
  }

  private forgetClosed(): void {
    this.closed?.queryClient.clear();
    this.closed = null;
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
    // Its records, snapshots and results stay readable (not polled) for the page's views until the next
    // connection or replay.
    this.forgetClosed();
    this.closed = conn;
    // What was waiting for the page belongs to this connection: the next one starts clean.
    this.outbox.forgetConnection();
    conn.holder.set(null);
    if (session) await (end ? session.close() : session.abandon());
  }
}
