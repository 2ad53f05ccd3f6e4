/**
 * What crosses between the page and the engine Worker: plain data only (structured clone). The page sends
 * commands and gets one reply each; the engine sends batches of changes, at most one until the page has
 * applied the last (its ack), so changes coalesce in the Worker while the page is busy.
 */
import type {
  AuthCallback,
  AuthClientChoice,
  AuthView,
  PendingSignIn,
  RememberedSignIn,
  ClassifiedError,
  Detection,
  Era,
  EraChoice,
  Normalised,
  RelayRoute,
  ResumeSession,
  StdioRoute,
  ServerDescription,
  ServerTaskSupport,
  TaskResultSnapshot,
  TaskSnapshot,
  ToolInfo,
  TrafficEvent,
  Warning,
} from '../mcp';
import type { TaskChanges } from '../tracker/task-changes';
import type { TrafficCounts } from './traffic-rows';
import type { TrafficWindow, TrafficWindowRequest } from './traffic-window';
import type { OverviewChanges, TaskListWindow, TaskViewRequest } from './task-views';
import type { TrackerSettings } from '../tracker/tracker-types';
import type { SchedulerStats } from '../tracker/request-scheduler';
import type { ActiveCheckState } from '../rules/report-types';
import type { ClientCard } from '../rules/client-judge';

export type { TrackerSettings };

export type Command =
  | {
      type: 'connect';
      connectionId: number;
      url: string;
      headers: Record<string, string>;
      settings: TrackerSettings;
      /** A deep-linked task to follow if tasks/list does not bring it. */
      followTaskId?: string;
      /** This tab's session from before a reload, to take up again while the receiver still knows it. */
      resume?: ResumeSession;
      /** Reach the receiver through `npm start`'s relay (it does not allow the page's origin). */
      relay?: RelayRoute;
      /** A stdio server `taskscope --stdio` runs: its bridge's token and this connection's name there. */
      stdio?: StdioRoute;
      /** Keep what is observed in IndexedDB and restore it (devtools' "Preserve log"); on by default. */
      preserve?: boolean;
      /** The protocol generation: found out (auto, the default) or forced by the person. */
      era?: EraChoice;
      /** Sign in when the receiver answers 401 with a Bearer challenge: Taskscope's callback and the client to use. */
      auth?: {
        redirectUri: string;
        choice?: AuthClientChoice;
        /** "Remember sign-in" is ticked for this receiver: the sign-in comes back in news to be stored. */
        remember?: boolean;
        /** The sign-in this browser remembered for this receiver, to take up instead of signing in again. */
        remembered?: RememberedSignIn;
        /** Back from a same-tab sign-in: the kept pending sign-in and the callback, finished before connecting. */
        returning?: { trip: PendingSignIn; callback: AuthCallback };
      };
    }
  /** The authorization callback came back (popup or another tab): finish the sign-in, then connect. */
  | { type: 'authCallback'; callback: AuthCallback }
  /** Get a sign-in ready again (after Sign out or a failure). */
  | { type: 'signIn' }
  /** The sign-in waiting for its callback, for the page to keep over a same-tab round trip (never a token). */
  | { type: 'pendingSignIn' }
  /** The person allowed (or not) the origin the sign-in waits to contact. */
  | { type: 'confirmOrigin'; origin: string; allow: boolean }
  /** Forget the tokens of the current receiver. */
  | { type: 'signOut' }
  /** "Remember sign-in" ticked or not for the current receiver. */
  | { type: 'rememberSignIn'; on: boolean }
  /** `end` false: close without ending the session on the receiver (no DELETE). */
  | { type: 'disconnect'; end?: boolean }
  | { type: 'preserve'; on: boolean }
  /** Forgets the receiver's history, shown and stored, except tasks still live. */
  | { type: 'clearHistory' }
  /** A task restored from another session: follow it in this one. */
  | { type: 'follow'; taskId: string }
  /** Write what is pending to history now (the page is going away). */
  | { type: 'flush' }
  | { type: 'settings'; settings: TrackerSettings }
  | { type: 'listTools' }
  | { type: 'run'; tool: ToolInfo; args: Record<string, unknown>; ttl?: number }
  | { type: 'callPlain'; tool: ToolInfo; args: Record<string, unknown> }
  | { type: 'track'; taskId: string }
  | { type: 'cancel'; taskId: string }
  | { type: 'refetchResult'; taskId: string }
  | { type: 'pollNow'; taskId: string }
  | { type: 'stopResult'; taskId: string }
  /**
   * The page holds the traffic log's rows (on: the report card is open, or a command line client) or only its
   * counts (off). Traffic crosses to the page only while on.
   */
  | { type: 'trafficMirror'; on: boolean }
  /** The page cleared the traffic log: the engine's goes too. `epoch` counts the page's clears. */
  | { type: 'trafficClear'; epoch: number }
  /** Every event the log keeps (of one connection, when given), for an export. */
  | { type: 'trafficEvents'; connectionId?: number }
  /** What the traffic drawer shows (null: it closed): only that crosses to it (traffic-window.ts). */
  | { type: 'trafficWindow'; window: TrafficWindowRequest | null }
  /** What the page shows of the tasks: only that crosses to it from now on (task-views.ts). */
  | { type: 'taskView'; view: TaskViewRequest }
  /** Follow the task ids that pushes named beyond the automatic limit. */
  | { type: 'trackSeen' }
  | { type: 'syncList' }
  /**
   * The report card's active check (it creates tasks on the receiver: only on the person's request). `args`:
   * the arguments to run `tool` with (`taskscope check --args`); otherwise its defaults only.
   */
  | { type: 'checkReceiver'; tool?: string; args?: Record<string, unknown> }
  | { type: 'stopCheck' }
  /** Sends a recorded request again (its params as recorded, or as the person edited them) with a fresh id. */
  | { type: 'resend'; method: string; params?: Record<string, unknown> }
  /**
   * Plays a trace back with no receiver (the live connection, if any, is closed first). The trace (a file's
   * text, or parsed JSON) is untrusted input and is validated in the engine, off the page's thread; `at`
   * starts the replay there, `speed` instant runs it to the end. Without `trace`, the one the last
   * replayCheck accepted is played.
   */
  | { type: 'replay'; connectionId: number; trace?: string | object; speed: ReplaySpeed; at?: number }
  /**
   * Validates a trace and holds it for the next replay, touching nothing else: the page resets its stores
   * only once the engine has accepted the file, so a refused one leaves the live connection as it was.
   */
  | { type: 'replayCheck'; trace: string | object }
  /**
   * Starts the current trace again at `at`, under a new connection id, so every store starts clean; `paused`:
   * stays paused there (scrubbing a paused replay).
   */
  | { type: 'replaySeek'; connectionId: number; at: number; speed: ReplaySpeed; paused?: boolean }
  | { type: 'replayControl'; action: 'play' | 'pause' }
  | { type: 'replaySpeed'; speed: ReplaySpeed }
  /**
   * Watches what Taskscope's proxy saw pass between a client and its server: `source` is one of the page's
   * server's /observed/sources, `server` that server (the page's origin) with its per-start token. Shows the
   * client session `session` (a key of the news' `observed.sessions`), else the newest. Passive: nothing is
   * sent to the client's server; the commands that would are refused while it runs.
   */
  | { type: 'observe'; connectionId: number; source: string; session?: string; server: ObservedRoute }
  | {
      type: 'answer';
      key: string;
      /** What was answered, in a few words, for the inbox and the task's timeline. */
      outcome: string;
      /** The JSON-RPC result, or a refusal sent back as a JSON-RPC error. */
      reply: { result: Record<string, unknown> } | { error: { code: number; message: string } };
    };

export type ConnectReply =
  | { ok: true; server: ServerDescription; support: ServerTaskSupport; sessionId?: string; resumed: boolean }
  | { ok: false; stale: true }
  | { ok: false; stale?: false; error: ClassifiedError };

export type Failure = { ok: false; error: ClassifiedError };

export interface Replies {
  connect: ConnectReply;
  authCallback: boolean;
  signIn: null;
  pendingSignIn: PendingSignIn | null;
  confirmOrigin: boolean;
  signOut: null;
  rememberSignIn: null;
  disconnect: null;
  preserve: null;
  clearHistory: string[];
  follow: null;
  flush: null;
  settings: null;
  listTools: { tools: ToolInfo[]; warnings: Warning[] };
  /** `answer`: the receiver answered at once instead of creating a task (2026-07-28 lets it). */
  run:
    | { ok: true; taskId: string }
    | { ok: true; taskId?: undefined; answer: Normalised<TaskResultSnapshot> }
    | Failure;
  callPlain: { ok: true; answer: Normalised<TaskResultSnapshot> } | Failure;
  track: boolean;
  cancel: ClassifiedError | null;
  refetchResult: null;
  pollNow: null;
  stopResult: boolean;
  trafficMirror: null;
  trafficClear: null;
  trafficEvents: TrafficEvent[];
  trafficWindow: null;
  taskView: null;
  trackSeen: number;
  syncList: ClassifiedError | null;
  /** The check's end state; refused when not connected or one already runs. */
  checkReceiver: { ok: true; state: ActiveCheckState } | { ok: false; reason: string };
  stopCheck: boolean;
  /** The receiver's result, or why there is none. */
  resend: { ok: true; result: unknown } | Failure;
  answer: boolean;
  replay: { ok: true; info: ReplayInfo; warnings: string[] } | { ok: false; errors: string[] };
  replayCheck: { ok: true; info: ReplayInfo; warnings: string[] } | { ok: false; errors: string[] };
  replaySeek: boolean;
  replayControl: null;
  replaySpeed: null;
  observe: { ok: true; source: ObservedSource } | Failure;
}

export type ReplyTo<C extends Command> = Replies[C['type']];

/** A request the receiver sent us (elicitation, sampling), for a person to answer. */
export interface InboxRequest {
  key: string;
  connectionId: number;
  requestId: string | number;
  method: string;
  params: Record<string, unknown>;
  /** The task it belongs to (related-task _meta); none for a request during a plain tools/call. */
  relatedTaskId?: string;
  receivedAt: number;
}

export type InboxEvent =
  | { kind: 'asked'; request: InboxRequest }
  | {
      kind: 'settled';
      key: string;
      state: 'answered' | 'cancelled';
      outcome: string;
      /** When it was answered. */
      at?: number;
      /** What was sent back (capped), so the record shows the values, also after a reload. */
      reply?: { result: Record<string, unknown> } | { error: { code: number; message: string } };
    };

export type ConnectionStopReason = 'server-exited' | 'sign-in-needed';

/**
 * One state for the connection, as the header shows it. connecting: the first session is being opened.
 * session-lost: the receiver no longer knows ours; a new one is being opened. unreachable: nothing answers
 * (refused, dropped, no route); retrying. error: the receiver answered, and it cannot work (no MCP endpoint,
 * a web page, CORS, auth); not retried by itself.
 */
export interface Health {
  status: 'connecting' | 'connected' | 'session-lost' | 'unreachable' | 'error';
  error?: ClassifiedError;
  /**
   * Why an error stops the connection, when the engine knows more than the error's kind: the stdio server's
   * process ended (a Restart brings it back), or the receiver wants a sign-in (after Sign out, or a 401).
   */
  reason?: ConnectionStopReason;
  /** Since when it has been in this state. */
  since: number;
  /** When the next attempt goes out, while retrying. */
  retryAt?: number;
  attempt?: number;
  server?: ServerDescription;
  support?: ServerTaskSupport;
  sessionId?: string;
  protocolVersion?: string;
  /** The generation spoken, and how that was settled (server/discover answered, initialize, forced, resumed). */
  era?: Era;
  detectedBy?: Detection;
  /** The session was taken up again after a reload, not initialized. */
  resumed?: boolean;
  /** Connected again after an outage or a lost session. */
  recoveredAt?: number;
}

/** What became of history writes: said in the page, never thrown. */
export interface HistoryNews {
  state: 'on' | 'off' | 'unavailable' | 'full' | 'error';
  message?: string;
  /** Tasks restored from history on this connect. */
  restored?: number;
  /** Older ended tasks history let go of, past its cap per receiver. */
  dropped?: number;
}

/**
 * What changed about the connection since the last batch. Separate fields, so one event in a batch never
 * hides another (a session lost and then a success must both arrive).
 */
export interface ConnectionNews {
  health?: Health;
  history?: HistoryNews;
  /** Requests keep failing (network, deadlines, 5xx) since `since`; null: answering again. */
  degraded?: { failures: number; since: number; error: ClassifiedError } | null;
  /** The GET stream keeps closing right after it opens. */
  streamNote?: string;
  /** The active check's progress (the latest state only). */
  check?: ActiveCheckState;
  /** The receiver's sign-in: status, server, client, scopes, expiry and the steps (never a secret). */
  auth?: AuthView;
  /** Only with "Remember sign-in" ticked: the sign-in to store (null: forget the stored one). */
  rememberedSignIn?: RememberedSignIn | null;
  /** An observed client's sessions (the observe command): the list, the one shown. */
  observed?: ObservedNews;
}

export interface ListStatus {
  loading: boolean;
  lastSyncedAt?: number;
  error?: ClassifiedError;
  /** Why the last listing stopped before its last page (too many pages or tasks, a repeated cursor). */
  stopped?: string;
}

/** How polling keeps up: the page says so when the browser cannot send as fast as the tasks ask. */
export interface PollingHealth extends SchedulerStats {
  liveTasks: number;
  /** Polls per second the live tasks' intervals ask for. */
  demandPerSecond: number;
}

export interface Batch {
  type: 'batch';
  connectionId: number;
  /** The records the page holds (those it shows, or all): what changed, what came into view, what left it. */
  tasks?: TaskChanges;
  /** The list's rows the page asked for and its counts, when they changed or the page asked anew. */
  taskList?: TaskListWindow;
  /** The overview's summaries that changed, while it is open. */
  overview?: OverviewChanges;
  snapshots: Array<[taskId: string, snapshot: TaskSnapshot]>;
  results: Array<[taskId: string, result: Normalised<TaskResultSnapshot>]>;
  /**
   * Traffic for the page's copy of the log, only while it mirrors it (trafficMirror): what was added since
   * the last batch, or the whole log (trafficSync).
   */
  traffic: TrafficEvent[];
  /** Traffic events dropped in the Worker because the page fell behind. */
  trafficDropped: number;
  /** `traffic` is the whole log: the page's copy starts again from it. */
  trafficSync?: boolean;
  /** The log's counts, when they changed (all the page holds of it without the drawer or the report card open). */
  trafficCount?: TrafficCounts;
  /** The drawer's rows and opened message, when they changed, while it is open. */
  trafficWindow?: TrafficWindow;
  /** The page's clear of the log this batch follows: traffic from before the page's latest clear is not shown. */
  trafficEpoch: number;
  inbox: InboxEvent[];
  connection?: ConnectionNews;
  listStatus?: ListStatus;
  polling?: PollingHealth;
  /** Receiver requests refused because too many already wait for a person, said once per change. */
  refused?: string;
  /** Where the replay stands (only while a trace is replayed). */
  replay?: ReplayNews;
}

/** The page's own server, which serves what its proxy observed (`/observed/*`), and its per-start token. */
export interface ObservedRoute {
  /** The page's origin. */
  url: string;
  token: string;
}

/** One observed source, as `/observed/sources` lists it. */
export interface ObservedSource {
  name: string;
  kind: 'http' | 'stdio';
  /** The upstream's URL, redacted, or `stdio:NAME`. */
  upstream: string;
  /** A line for the page: e.g. a 401 with a Bearer challenge passed, so `--header` is the way. */
  note?: string;
}

/** One client session of an observed source, as the page's picker lists it. */
export interface ObservedSessionInfo {
  key: string;
  /** The client's name and version, or what tells it apart. */
  label: string;
  era?: Era;
  /** Tasks the client created in it. */
  tasks: number;
  /** Wall-clock ms of its last message. */
  lastAt: number;
  /** The server as it named itself to this client. */
  serverName?: string;
}

/** What is being observed: the source, its client sessions, the one shown. */
export interface ObservedNews extends ObservedSource {
  sessions: ObservedSessionInfo[];
  selected?: string;
  /** Messages the proxy's copy let go of before the page read them (its caps). */
  dropped?: number;
  /** The client shown, judged by the client rules (rules/client-judge.ts), at most once a second. */
  clientCard?: ClientCard;
}

/** What the page says about a trace being replayed. */
export interface ReplayInfo {
  receiverUrl: string;
  /** The receiver's own name (its title, else its name), when the trace has it. */
  receiverName?: string;
  /** ISO time of export. */
  exportedAt: string;
  startedAt: number;
  endedAt: number;
  tasks: number;
  /** The task that shows most of what the recording holds: opened when the replay starts with none open. */
  featuredTaskId?: string;
}

/** A replay's speed: 1×, 4×, or instantly to the end. */
export type ReplaySpeed = 1 | 4 | 'instant';

/** Where a replay stands, for the page's bar and clock: virtual time `at` was true at real time `realAt`. */
export interface ReplayNews {
  at: number;
  realAt: number;
  speed: ReplaySpeed;
  playing: boolean;
  /** Time has reached the end of the recording. */
  ended: boolean;
  startedAt: number;
  endedAt: number;
}

/** A command's reply, or why there is none, classified as every error the engine reports (mcp/classify.ts). */
export type FromEngine =
  | Batch
  | { type: 'reply'; id: number; value: unknown }
  | { type: 'reply'; id: number; failure: ClassifiedError };

export type ToEngine = { type: 'command'; id: number; command: Command } | { type: 'ack' };
