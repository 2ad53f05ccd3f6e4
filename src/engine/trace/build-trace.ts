/**
 * Builds a trace (its format: schema.ts) from what was observed. Pure: the page reads its stores for it
 * (src/trace/export-sources.ts), `taskscope check --trace` and the tests hand in what an engine sent, and all
 * get the same file.
 */
import {
  REDACTED,
  isSecretHeader,
  redactHeaders,
  redactUrl,
  type Era,
  type Normalised,
  type ServerDescription,
  type ServerTaskSupport,
  type TaskResultSnapshot,
  type TaskSnapshot,
  type ToolInfo,
  type TrafficEvent,
} from '../../mcp';
import { formatFileStamp } from '../../format/time';
import type { InboxEvent } from '../messages';
import { redactTrafficEvent } from '../history/redact';
import { TRACE_FORMAT, TRACE_VERSION } from './limits';
import type { Trace, TraceTask } from './schema';
import type { TrackedTask } from '../../tracker/task-store';

export interface TraceSources {
  receiver: {
    url: string;
    headers: Record<string, string>;
    era?: Era;
    protocolVersion?: string;
    server?: ServerDescription;
    support?: ServerTaskSupport;
    sessionId?: string;
  };
  tools: ToolInfo[];
  /** In the order they were first tracked. */
  tasks: TrackedTask[];
  snapshot: (taskId: string) => TaskSnapshot | undefined;
  result: (taskId: string) => Normalised<TaskResultSnapshot> | undefined;
  inbox: InboxEvent[];
  traffic: TrafficEvent[];
}

export interface ExportOptions {
  /** Keep header values and URL credentials as they are; off unless the person ticks it. */
  includeSecrets?: boolean;
  now?: number;
}

/**
 * Session ids replaced by `session-1`, `session-2`… in the order first met, the same id always by the same
 * name: sessions stay apart in the file, and the file holds no id a receiver would still answer to.
 */
class SessionPseudonyms {
  private readonly names = new Map<string, string>();
  name(id: string): string;
  name(id: string | undefined): string | undefined;
  name(id: string | undefined): string | undefined {
    if (id === undefined) return undefined;
    let name = this.names.get(id);
    if (name === undefined) {
      name = `session-${this.names.size + 1}`;
      this.names.set(id, name);
    }
    return name;
  }
  headers(headers: Record<string, string>): Record<string, string> {
    return Object.fromEntries(
      Object.entries(headers).map(([key, value]) => [
        key,
        key.toLowerCase() === 'mcp-session-id' ? this.name(value) : value,
      ]),
    );
  }
  traffic(event: TrafficEvent): TrafficEvent {
    if (!event.http) return event;
    return {
      ...event,
      http: {
        ...event.http,
        requestHeaders: this.headers(event.http.requestHeaders),
        responseHeaders: this.headers(event.http.responseHeaders),
      },
    };
  }
}

/** JSON drops undefined fields anyway; dropping them here keeps a built trace equal to the same trace read back. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function traceTask(task: TrackedTask, sources: TraceSources): TraceTask {
  const out: TraceTask = {
    taskId: task.taskId,
    tool: task.tool,
    call: task.call,
    origin: task.origin,
    startedBy: task.startedBy,
    firstSeenAt: task.firstSeenAt,
    status: task.status,
    lifecycle: task.lifecycle,
    entries: task.entries,
    droppedEntries: task.droppedEntries,
    sessionId: task.sessionId,
    // Whether it was restored from history is this page's business, not the recording's.
    progress: task.progress && {
      progress: task.progress.progress,
      total: task.progress.total,
      message: task.progress.message,
      at: task.progress.at,
    },
    snapshot: sources.snapshot(task.taskId),
    result: sources.result(task.taskId),
  };
  return withoutUndefined(out);
}

/** The span the trace covers: from the first thing seen to the last, for a replay's scrubber. */
function span(trace: Pick<Trace, 'tasks' | 'traffic' | 'inbox'>, now: number): [number, number] {
  let first = Infinity;
  let last = -Infinity;
  const see = (t: number | undefined) => {
    if (t === undefined || !Number.isFinite(t)) return;
    if (t < first) first = t;
    if (t > last) last = t;
  };
  for (const task of trace.tasks) {
    see(task.firstSeenAt);
    for (const entry of task.entries) see(entry.at);
  }
  for (const event of trace.traffic) see(event.wallTime);
  for (const event of trace.inbox) see(event.kind === 'asked' ? event.request.receivedAt : event.at);
  return first === Infinity ? [now, now] : [first, last];
}

/** Header names match whatever their case: Authorization from the person and authorization from the wire are one. */
class NameSet extends Set<string> {
  private readonly lower = new Set<string>();
  override add(name: string): this {
    if (this.lower?.has(name.toLowerCase())) return this;
    this.lower?.add(name.toLowerCase());
    return super.add(name);
  }
}

function redactTraffic(event: TrafficEvent, redacted: Set<string>): TrafficEvent {
  // The tap redacts secret header values; the URL's secrets and headers-like fields in bodies go here.
  const out = redactTrafficEvent(event, redacted);
  for (const [name, value] of Object.entries(out.http?.requestHeaders ?? {}))
    if (value === REDACTED) redacted.add(name);
  return out;
}

export function buildTrace(sources: TraceSources, options: ExportOptions = {}): Trace {
  const now = options.now ?? Date.now();
  const secrets = options.includeSecrets === true;
  const redacted = new NameSet();
  const { receiver } = sources;

  let headers = receiver.headers;
  if (!secrets) {
    headers = redactHeaders(receiver.headers);
    for (const name of Object.keys(receiver.headers)) if (isSecretHeader(name)) redacted.add(name);
  }
  const sessions = secrets ? undefined : new SessionPseudonyms();
  // The receiver's session first, so the one the person was on is session-1.
  const sessionId = sessions ? sessions.name(receiver.sessionId) : receiver.sessionId;
  const traffic = sessions
    ? sources.traffic.map((e) => sessions.traffic(redactTraffic(e, redacted)))
    : sources.traffic;
  const tasks = sources.tasks.map((t) => {
    const task = traceTask(t, sources);
    return sessions && task.sessionId !== undefined
      ? { ...task, sessionId: sessions.name(task.sessionId) }
      : task;
  });
  const inbox = sources.inbox;
  const [startedAt, endedAt] = span({ tasks, traffic, inbox }, now);

  const traceReceiver: Trace['receiver'] = {
    url: secrets ? receiver.url : redactUrl(receiver.url, redacted),
    era: receiver.era,
    protocolVersion: receiver.protocolVersion,
    server: receiver.server,
    support: receiver.support,
    // A pseudonym unless secrets are included: the tasks of two sessions (records carry sessionId) can still
    // be told apart, and no live session id leaves in the file.
    sessionId,
    headers: Object.keys(headers).length > 0 ? headers : undefined,
  };

  return {
    format: TRACE_FORMAT,
    version: TRACE_VERSION,
    exportedAt: new Date(now).toISOString(),
    startedAt,
    endedAt,
    redacted: [...redacted].sort(),
    receiver: withoutUndefined(traceReceiver),
    tools: sources.tools,
    tasks,
    inbox,
    traffic,
  };
}

/** A file name that says which receiver and when: `taskscope-127.0.0.1-3001-20261201-071503.trace.json`. */
export function exportFileName(receiverUrl: string, extension: string, now = new Date()): string {
  let host = 'receiver';
  try {
    host = new URL(receiverUrl).host || host;
  } catch {
    // keep the generic name
  }
  const safeHost = host.replace(/[^A-Za-z0-9.-]+/g, '-').slice(0, 80);
  return `taskscope-${safeHost}-${formatFileStamp(now)}.${extension}`;
}
