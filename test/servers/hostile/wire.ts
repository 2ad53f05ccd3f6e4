/**
 * The hostile receiver's own names and shapes: its cases, the counts a test reads, the server's interface, and
 * the sizes its cases use. The shared plumbing is src/devserver/demo-faults/wire.ts.
 */
import { type TaskGetCount } from '../../../src/devserver/demo-faults/wire.js';

export const CASE_NAMES = [
  'huge-interval',
  'retry-after-http',
  'retry-after-rpc',
  'sse-retry-zero',
  'deep-result',
  'resource-result',
  'huge-status',
  'notification-flood',
  'endless-list',
  'huge-list',
  'silent-get',
  'endless-sse-answer',
  'wrong-id',
  'future-created',
  'ttl-absurd',
  'elicitation-flood',
  'wide-elicitation',
] as const;

export type CaseName = (typeof CASE_NAMES)[number];

export interface CaseCounts {
  /** JSON-RPC requests and notifications the client POSTed, by method. */
  methods: Record<string, number>;
  /** GET requests for the notification stream (stream opens). */
  GET: number;
  POST: number;
  DELETE: number;
  /** CORS preflights. */
  OPTIONS: number;
  /** JSON-RPC responses the client POSTed (its answers to elicitation/create). */
  responses: number;
  /** tasks/get per taskId (the first 50,000 distinct ids). */
  tasksGet: Record<string, TaskGetCount>;
  /** tasks/get for ids beyond the first 50,000 distinct ones: counted, not itemised. */
  tasksGetUntracked: number;
  /** notifications/tasks/status written to GET streams. */
  notificationsSent: number;
  /** elicitation/create requests written to tasks/result streams. */
  elicitationsSent: number;
  /** Requests and streams of this case held open right now. */
  open: number;
}

export interface HostileReceiver {
  /** Base URL, e.g. http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  /** The MCP endpoint of a case: `${url}/<case>/mcp`. */
  caseUrl(name: CaseName): string;
  /** The faults case's endpoint breaking these rules (src/devserver/demo-faults/faults.ts); none: a well-behaved receiver. */
  faultsUrl(faults: readonly string[]): string;
  counts(name: CaseName): CaseCounts;
  /** Clears the counts and recreates the tasks of one case, or of every case. */
  reset(name?: CaseName): void;
  /** Ends every held-open request and stream, stops every timer, closes the server. */
  close(): Promise<void>;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

export const FLOOD_PER_SECOND = 2000;
export const FLOOD_TICK_MS = 10;
export const FLOOD_FOR_MS = 10_000;
export const FLOOD_KNOWN_SHARE = 0.1;
export const HUGE_STATUS_BYTES = 20 * 1024 * 1024;
export const DEEP_LEVELS = 100_000;
export const ELICITATIONS = 1000;
export const WIDE_PROPERTIES = 10_000;
export const HUGE_LIST_SIZE = 20_000;
export const RETRY_AFTER_SECONDS = 4000;
export const RETRY_AFTER_MS = 4_000_000;
