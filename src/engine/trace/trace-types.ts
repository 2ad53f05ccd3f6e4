/**
 * A Taskscope trace (issue #12): everything observed of one receiver, to share, to open in another browser and
 * to replay with no receiver. The format is versioned; `schema.ts` validates a file (it is untrusted input) and
 * `public/trace.schema.json` publishes the same rules as JSON Schema. Times are wall-clock ms unless said.
 */
import type {
  Era,
  Normalised,
  ServerDescription,
  TaskResultSnapshot,
  TaskSnapshot,
  ToolInfo,
  TrafficEvent,
} from '../../mcp';
import type { TaskCall, TimelineEntry, TrackedTask } from '../../tasks/core/store';
import type { InboxEvent } from '../messages';

export const TRACE_FORMAT = 'taskscope-trace';
export const TRACE_VERSION = 1;

export interface TraceReceiver {
  /** The receiver's URL, with its query's secrets redacted. */
  url: string;
  era?: Era;
  protocolVersion?: string;
  server?: ServerDescription;
  /** Request headers the person set, values of secret ones replaced by "[redacted]". */
  headers?: Record<string, string>;
}

/** One task as observed: its record (entries are the timeline, oldest first), last snapshot and result. */
export interface TraceTask {
  taskId: string;
  tool?: string;
  call?: TaskCall;
  origin: TrackedTask['origin'];
  firstSeenAt: number;
  status: TrackedTask['status'];
  lifecycle: TrackedTask['lifecycle'];
  entries: TimelineEntry[];
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
  /** Names of the headers whose values were replaced; empty when the person chose to keep secrets. */
  redacted: string[];
  receiver: TraceReceiver;
  tools: ToolInfo[];
  tasks: TraceTask[];
  /** The receiver's requests to the person (elicitation, sampling) and what became of them. */
  inbox: InboxEvent[];
  /** Every JSON-RPC message kept in the traffic log, oldest first. */
  traffic: TrafficEvent[];
}
