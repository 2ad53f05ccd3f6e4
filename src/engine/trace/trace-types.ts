/**
 * A Taskscope trace: everything observed of one receiver, to share, to open in another browser and
 * to replay with no receiver. The format is versioned; `schema.ts` validates a file (it is untrusted input) and
 * `public/trace.schema.json` publishes the same rules as JSON Schema. Times are wall-clock ms unless said.
 */
import type {
  Era,
  Normalised,
  ServerDescription,
  ServerTaskSupport,
  TaskResultSnapshot,
  TaskSnapshot,
  ToolInfo,
  TrafficEvent,
} from '../../mcp';
import type { TaskCall, TimelineEntry, TrackedTask } from '../../tracker/task-store';
import type { InboxEvent } from '../messages';

export const TRACE_FORMAT = 'taskscope-trace';
export const TRACE_VERSION = 1;

export interface TraceReceiver {
  /** The receiver's URL, with its query's secrets redacted. */
  url: string;
  era?: Era;
  protocolVersion?: string;
  server?: ServerDescription;
  /** What the receiver supports of tasks (list, cancel, task-augmented tools/call), as the receiver card shows. */
  support?: ServerTaskSupport;
  /**
   * The Mcp-Session-Id at export, kept even when secrets are redacted: MCP forbids receivers to use a session
   * for authentication, and without it the tasks of two sessions in one trace cannot be told apart.
   */
  sessionId?: string;
  /** Request headers the person set, values of secret ones replaced by "[redacted]". */
  headers?: Record<string, string>;
}

/** One task as observed: its record (entries are the timeline, oldest first), last snapshot and result. */
export interface TraceTask {
  taskId: string;
  tool?: string;
  call?: TaskCall;
  origin: TrackedTask['origin'];
  /** Created by the report card's check (absent in traces from before the mark). */
  startedBy?: TrackedTask['startedBy'];
  firstSeenAt: number;
  status: TrackedTask['status'];
  lifecycle: TrackedTask['lifecycle'];
  entries: TimelineEntry[];
  /** Older entries the tracker let go of (it keeps the newest 2,000 per task). */
  droppedEntries?: number;
  /** The session the task was last known in. */
  sessionId?: string;
  progress?: TrackedTask['progress'];
  snapshot?: TaskSnapshot;
  /** The result as fetched, whole (the traffic log cuts bodies over 64 KB; replay reads results from here). */
  result?: Normalised<TaskResultSnapshot>;
}

export interface Trace {
  format: typeof TRACE_FORMAT;
  version: typeof TRACE_VERSION;
  /** ISO time of export. */
  exportedAt: string;
  /** The span the trace covers, wall-clock ms: what a replay's scrubber runs over. */
  startedAt: number;
  endedAt: number;
  /**
   * What was replaced by "[redacted]": header names, `?name` for a URL query parameter, `url password`. Empty
   * when the person chose to keep secrets; HTTP facts in the traffic are redacted by the tap either way.
   */
  redacted: string[];
  receiver: TraceReceiver;
  tools: ToolInfo[];
  tasks: TraceTask[];
  /** The receiver's requests to the person (elicitation, sampling) and what became of them. */
  inbox: InboxEvent[];
  /** Every JSON-RPC message kept in the traffic log, oldest first. */
  traffic: TrafficEvent[];
}
