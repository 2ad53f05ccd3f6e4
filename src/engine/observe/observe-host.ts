/**
 * The engine's observing side, beside the live connection (host.ts) and the replay (trace/replay-host.ts): it
 * reads what Taskscope's proxy saw pass between a client and its server (observed-stream.ts), keeps a capped
 * buffer of it (observed-buffer.ts), tells the client sessions apart (rules/client-sessions.ts) and shows one of them — the newest
 * unless the page picks another — as an ObservedView feeding the same Outbox as a live connection, so the page's
 * stores fill as they do live. Passive: while it runs, the commands that would reach a receiver are refused
 * (passive-refusals.ts), and nothing is sent to the client's server.
 */
import {
  serverTaskSupport,
  serverTaskSupport2026,
  type ClassifiedError,
  type TrafficSeqCounter,
} from '../../mcp';
import { splitClientSessions, type ObservedClient } from '../../rules/client-sessions';
import { judgeClient, type ClientCard } from '../../rules/client-judge';
import type { CommandOf, CommandPart, CommandTable } from '../commands';
import type { ConnectionNews, Health, ObservedNews, ObservedSource, Replies } from '../messages';
import type { Outbox, TaskParts } from '../outbox';
import { passiveTable } from '../passive-refusals';
import type { PageTaskView } from '../task-views';
import { ObservedStream, fetchSource } from './observed-stream';
import { newest, summarise, type SessionSummary } from './observed-sessions';
import { ObservedView } from './observed-view';
import { ObservedBuffer } from './observed-buffer';

/** Client sessions listed; past it the rest count with the unnamed client (splitClientSessions). */
const MAX_SESSIONS = 100;
/** New messages are split into sessions at most this often: a flood costs one split per interval. */
const SPLIT_EVERY_MS = 50;
/** The client rules walk the whole session: judged again at most this often while messages come. */
const JUDGE_EVERY_MS = 1000;

const REFUSED: ClassifiedError = {
  kind: 'unsupported',
  message: "This is an observed client's session: Taskscope only watches it, so nothing can be sent.",
};

interface Observing {
  source: ObservedSource;
  routeKey: string;
  stream: ObservedStream;
  buffer: ObservedBuffer;
  /** The session shown: the one the page picked (`wanted`), else the newest, followed as sessions come. */
  view: ObservedView | null;
  wanted: string | undefined;
  connectionId: number;
  health: Health;
  splitTimer: ReturnType<typeof setTimeout> | undefined;
  /** The client shown, judged by the client rules; again at most once a second (JUDGE_EVERY_MS). */
  clientCard: ClientCard | undefined;
  judged: { at: number; key: string; messages: number } | undefined;
  judgeTimer: ReturnType<typeof setTimeout> | undefined;
}

export class ObserveHost {
  private current: Observing | null = null;
  /** Grows with every observe command: a later one makes an earlier one's late answer stale. */
  private opened = 0;

  constructor(
    private readonly outbox: Outbox,
    private readonly seqs: TrafficSeqCounter,
    /** Closes the live connection and any replay before observing takes the page. */
    private readonly closeOthers: () => Promise<void>,
    private readonly fetchFn: () => typeof fetch,
  ) {}

  get active(): boolean {
    return this.current !== null;
  }

  takeTaskParts(view: PageTaskView): TaskParts {
    const shown = this.current?.view;
    if (shown) return shown.takeTaskParts(view);
    return { connectionId: this.current?.connectionId ?? 0, snapshots: [], results: [] };
  }

  taskCount(): number {
    return this.current?.view?.taskCount() ?? 0;
  }

  readonly commands = {
    observe: (command) => this.observe(command),
  } satisfies CommandPart;

  /**
   * The engine's table while observing: a command that would reach a receiver gets its refusal, the tools
   * are none (the client's own are in its traffic); a connect or a disconnect ends the observing first (a
   * replay does when its trace is accepted: ReplayHost's closeLive).
   */
  over(live: CommandTable): CommandTable {
    return passiveTable(live, {
      active: () => this.current !== null,
      stop: () => this.stop(),
      listTools: async (command) => (this.current ? { tools: [], warnings: [] } : live.listTools(command)),
      error: REFUSED,
    });
  }

  /** Ends the observing; what it showed stays on the page until the next connection replaces it. */
  stop(): void {
    const current = this.current;
    if (!current) return;
    this.current = null;
    current.stream.stop();
    clearTimeout(current.splitTimer);
    clearTimeout(current.judgeTimer);
    current.view?.dispose();
    this.outbox.forgetConnection();
  }

  private async observe(command: CommandOf<'observe'>): Promise<Replies['observe']> {
    const seq = ++this.opened;
    const routeKey = `${command.server.url}\n${command.server.token}\n${command.source}`;
    const current = this.current;
    if (current && current.routeKey === routeKey) {
      // Another session of the source being read: its records start clean under the page's new id.
      current.wanted = command.session;
      current.connectionId = command.connectionId;
      this.show(current, true);
      this.news(current, { health: current.health });
      return { ok: true, source: current.source };
    }
    let found: Awaited<ReturnType<typeof fetchSource>>;
    try {
      found = await fetchSource(this.fetchFn(), command.server, command.source);
    } catch (error) {
      found = {
        ok: false,
        error: {
          kind: 'cors-or-network',
          message: `Taskscope's server did not answer: ${error instanceof Error ? error.message : String(error)}`,
        },
      };
    }
    if (seq !== this.opened)
      return { ok: false, error: { kind: 'other', message: 'Another observe came first.' } };
    if (!found.ok) return found;
    this.stop();
    await this.closeOthers();
    if (seq !== this.opened)
      return { ok: false, error: { kind: 'other', message: 'Another observe came first.' } };
    this.outbox.forgetConnection();
    this.outbox.dropPending();
    const observing: Observing = {
      source: found.source,
      routeKey,
      buffer: new ObservedBuffer(),
      view: null,
      wanted: command.session,
      connectionId: command.connectionId,
      health: { status: 'connecting', since: Date.now() },
      splitTimer: undefined,
      clientCard: undefined,
      judged: undefined,
      judgeTimer: undefined,
      stream: new ObservedStream(this.fetchFn(), command.server, command.source, {
        lines: (lines) => {
          observing.buffer.add(lines);
          this.scheduleSplit(observing);
        },
        dropped: (count) => {
          observing.buffer.dropped += count;
          this.scheduleSplit(observing);
        },
        state: (state) => {
          if (state.status === 'open')
            this.setHealth(observing, {
              ...observing.health,
              status: 'connected',
              since: Date.now(),
              error: undefined,
              retryAt: undefined,
              attempt: undefined,
            });
          else
            this.setHealth(observing, {
              ...observing.health,
              status: state.status === 'cut' ? 'unreachable' : 'error',
              since: Date.now(),
              error: state.error,
              ...(state.status === 'cut' ? { retryAt: state.retryAt, attempt: state.attempt } : {}),
            });
        },
      }),
    };
    this.current = observing;
    this.news(observing, { health: observing.health, observed: this.newsOf(observing, []) });
    void observing.stream.start();
    return { ok: true, source: found.source };
  }

  private scheduleSplit(observing: Observing): void {
    if (observing.splitTimer !== undefined) return;
    observing.splitTimer = setTimeout(() => {
      observing.splitTimer = undefined;
      if (this.current === observing) this.show(observing, false);
    }, SPLIT_EVERY_MS);
  }

  /**
   * Splits what was read into client sessions and brings the one shown up to date: the one the page picked,
   * else the newest. `fresh`: the page asked anew, so the records start clean under its new id.
   */
  private show(observing: Observing, fresh: boolean): void {
    const clients = splitClientSessions(observing.buffer.messages, MAX_SESSIONS);
    const summaries = clients.map(summarise);
    if (fresh) {
      observing.view?.dispose();
      observing.view = null;
      this.outbox.dropPending();
    }
    const shown = observing.view;
    const target =
      observing.wanted ??
      (shown && clients.some((c) => c.key === shown.key) ? shown.key : newest(summaries)?.key);
    if (target !== undefined) {
      if (!shown) observing.view = this.viewFor(observing, target);
      // The session shown has moved under another key (its initialize's answer named the session) or has
      // left the buffer: the newest is followed, and the records read so far stay.
      else shown.key = target;
    }
    const view = observing.view;
    const client: ObservedClient | undefined = clients.find((c) => c.key === view?.key);
    if (view && client) {
      view.readAll(client.messages);
      this.judge(observing, client);
    }
    this.news(observing, { observed: this.newsOf(observing, summaries) });
    const summary = summaries.find((s) => s.key === view?.key);
    if (summary) this.describeServer(observing, summary);
  }

  /** The client rules on the session shown: when it changed, at most once a second, the last change always. */
  private judge(observing: Observing, client: ObservedClient): void {
    const last = observing.judged;
    if (last && last.key === client.key && last.messages === client.messages.length) return;
    const wait = last && last.key === client.key ? last.at + JUDGE_EVERY_MS - Date.now() : 0;
    if (wait > 0) {
      observing.judgeTimer ??= setTimeout(() => {
        observing.judgeTimer = undefined;
        if (this.current === observing) this.show(observing, false);
      }, wait);
      return;
    }
    observing.clientCard = judgeClient(client.messages);
    observing.judged = { at: Date.now(), key: client.key, messages: client.messages.length };
  }

  private viewFor(observing: Observing, key: string): ObservedView {
    return new ObservedView(key, observing.connectionId, this.seqs, observing.source.upstream, {
      traffic: (event) => {
        if (this.current === observing) this.outbox.addTraffic(event);
      },
      inbox: (event) => {
        if (this.current === observing) this.outbox.addInbox(event);
      },
      changed: () => {
        if (this.current === observing) this.outbox.schedule();
      },
    });
  }

  /** The header's server and generation, as the server described itself to the client shown, and its session. */
  private describeServer(observing: Observing, summary: SessionSummary): void {
    const server = summary.server;
    const era = summary.era;
    const sessionId = summary.key.startsWith('session:') ? summary.key.slice('session:'.length) : undefined;
    const health = observing.health;
    if (
      health.era === era &&
      health.sessionId === sessionId &&
      JSON.stringify(health.server) === JSON.stringify(server)
    )
      return;
    this.setHealth(observing, {
      ...health,
      server,
      era,
      sessionId,
      protocolVersion: server?.protocolVersion ?? era,
      support: server
        ? era === '2026-07-28'
          ? serverTaskSupport2026(server.capabilities)
          : serverTaskSupport(server.capabilities)
        : undefined,
    });
  }

  private newsOf(observing: Observing, summaries: SessionSummary[]): ObservedNews {
    return {
      ...observing.source,
      sessions: summaries
        .slice()
        .sort((a, b) => b.firstAt - a.firstAt)
        .map(({ key, label, era, tasks, lastAt, serverName }) => ({
          key,
          label,
          ...(era !== undefined ? { era } : {}),
          tasks,
          lastAt,
          ...(serverName !== undefined ? { serverName } : {}),
        })),
      ...(observing.view ? { selected: observing.view.key } : {}),
      ...(observing.buffer.dropped > 0 ? { dropped: observing.buffer.dropped } : {}),
      ...(observing.clientCard && observing.judged?.key === observing.view?.key
        ? { clientCard: observing.clientCard }
        : {}),
    };
  }

  private setHealth(observing: Observing, health: Health): void {
    observing.health = health;
    this.news(observing, { health });
  }

  private news(observing: Observing, news: ConnectionNews): void {
    if (this.current !== observing) return;
    Object.assign(this.outbox.news, news);
    this.outbox.schedule();
  }
}
