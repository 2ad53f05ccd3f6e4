import { serverTaskSupport, serverTaskSupport2026, type ClassifiedError } from '../../mcp';
import type { CommandOf, CommandPart, CommandTable } from '../commands';
import { passiveTable } from '../passive-refusals';
import type { Health, ReplayInfo, Replies } from '../messages';
import type { Outbox, TaskParts } from '../outbox';
import type { PageTaskView } from '../task-views';
import { parseTrace, parseTraceText } from './schema';
import { ReplaySession, replayEnd, type ReplayOptions } from './replay';
import type { Trace } from './schema';

const REFUSED: ClassifiedError = {
  kind: 'unsupported',
  message: 'This is a replay of a recording: no receiver is contacted, so nothing can be sent.',
};

/**
 * The engine's replay side, beside the live connection in host.ts: it opens a trace (validated here, off the
 * page's thread), runs it in a ReplaySession and feeds the same Outbox as a live connection, so the page's
 * stores fill exactly as they do live. While a replay runs, commands that would talk to a receiver are refused.
 */
export class ReplayHost {
  private session: ReplaySession | null = null;
  private trace: Trace | null = null;
  /** The trace the last replayCheck accepted, with its warnings: the next replay without a trace plays it. */
  private checked: { trace: Trace; warnings: string[] } | null = null;

  constructor(
    private readonly outbox: Outbox,
    /** Closes the live connection (without ending its session) before a replay takes the page. */
    private readonly closeLive: () => Promise<void>,
    private readonly options: ReplayOptions = {},
  ) {}

  get active(): boolean {
    return this.session !== null;
  }

  takeTaskParts(view: PageTaskView): TaskParts {
    const parts = (this.session as ReplaySession).takeTaskParts(view);
    this.outbox.replay = (this.session as ReplaySession).news();
    return parts;
  }

  taskCount(): number {
    return this.session?.taskCount() ?? 0;
  }

  /** The replay's own commands: open a trace, start it again elsewhere, play, pause, change speed. */
  readonly commands = {
    replayCheck: async ({ trace }) => {
      const parsed = parse(trace);
      this.checked = parsed.ok ? { trace: parsed.trace, warnings: parsed.warnings } : null;
      return parsed.ok ? { ok: true, info: infoOf(parsed.trace), warnings: parsed.warnings } : parsed;
    },
    replay: (command) => this.open(command),
    replaySeek: async ({ connectionId, at, speed, paused }) => {
      if (!this.trace) return false;
      this.begin(this.trace, connectionId);
      await this.session?.start(at, speed, paused !== true);
      return true;
    },
    replayControl: async ({ action }) => {
      if (action === 'play') this.session?.play();
      else this.session?.pause();
      return null;
    },
    replaySpeed: async ({ speed }) => {
      this.session?.setSpeed(speed);
      return null;
    },
  } satisfies CommandPart;

  /**
   * The engine's table as a replay changes it: while one runs, a command that would reach a receiver gets its
   * refusal (passive-refusals.ts) and the tools are the trace's; a connect or a disconnect ends the replay first.
   */
  over(live: CommandTable): CommandTable {
    return passiveTable(live, {
      active: () => this.session !== null,
      stop: () => this.stop(),
      listTools: async (command) =>
        this.session ? { tools: this.trace?.tools ?? [], warnings: [] } : live.listTools(command),
      error: REFUSED,
    });
  }

  /** Ends the replay; what it showed stays on the page until the next connection replaces it. */
  stop(): void {
    if (!this.session) return;
    this.session.dispose();
    this.session = null;
    this.trace = null;
    this.outbox.forgetConnection();
  }

  private async open(command: CommandOf<'replay'>): Promise<Replies['replay']> {
    const parsed =
      command.trace !== undefined
        ? parse(command.trace)
        : this.checked
          ? { ok: true as const, ...this.checked }
          : { ok: false as const, errors: ['no trace was checked before the replay'] };
    this.checked = null;
    if (!parsed.ok) return parsed;
    const trace = parsed.trace;
    this.stop();
    await this.closeLive();
    this.trace = trace;
    this.begin(trace, command.connectionId);
    const server = trace.receiver.server;
    const era = trace.receiver.era;
    const health: Health = {
      status: 'connected',
      since: trace.startedAt,
      server,
      support:
        trace.receiver.support ??
        (era === '2026-07-28'
          ? serverTaskSupport2026(server?.capabilities)
          : serverTaskSupport(server?.capabilities)),
      protocolVersion: trace.receiver.protocolVersion ?? server?.protocolVersion,
      era,
    };
    Object.assign(this.outbox.news, { health });
    this.outbox.schedule();
    const session = this.session as ReplaySession | null;
    // Started in the background: an instant replay of a long trace answers the page first and fills in after.
    void session?.start(command.at ?? trace.startedAt, command.speed);
    return { ok: true, info: infoOf(trace), warnings: parsed.warnings };
  }

  /** A fresh session from the trace's start: tracker, query cache and page records all start clean. */
  private begin(trace: Trace, connectionId: number): void {
    this.session?.dispose();
    this.outbox.forgetConnection();
    this.outbox.dropPending();
    this.session = new ReplaySession(
      trace,
      connectionId,
      {
        traffic: (event) => this.outbox.addTraffic(event),
        inbox: (event) => this.outbox.addInbox(event),
        changed: () => this.outbox.schedule(),
      },
      this.options,
    );
  }
}

function parse(trace: string | object) {
  return typeof trace === 'string' ? parseTraceText(trace) : parseTrace(trace);
}

function infoOf(trace: Trace): ReplayInfo {
  const server = trace.receiver.server;
  return {
    receiverUrl: trace.receiver.url,
    receiverName: server ? (server.title ?? server.name) : undefined,
    exportedAt: trace.exportedAt,
    startedAt: trace.startedAt,
    endedAt: replayEnd(trace),
    tasks: trace.tasks.length,
    featuredTaskId: featuredTask(trace),
  };
}

/**
 * The most telling task of a recording, to open for a newcomer: the one with the most kinds of entry
 * (statuses, progress, input, a result, a purge), then the most entries; the earliest among equals, so it is
 * on screen from the start of the replay.
 */
export function featuredTask(trace: Pick<Trace, 'tasks'>): string | undefined {
  let best: { taskId: string; kinds: number; entries: number; at: number } | undefined;
  for (const task of trace.tasks) {
    const kinds = new Set(task.entries.map((e) => e.kind)).size;
    const candidate = { taskId: task.taskId, kinds, entries: task.entries.length, at: task.firstSeenAt };
    if (
      !best ||
      kinds > best.kinds ||
      (kinds === best.kinds &&
        (candidate.entries > best.entries || (candidate.entries === best.entries && candidate.at < best.at)))
    )
      best = candidate;
  }
  return best?.taskId;
}
