import type { QueryClient } from '@tanstack/query-core';
import type {
  AuthClient,
  ClassifiedError,
  Detection,
  Era,
  ReceiverTasksApi,
  SessionHolder,
  TrafficTap,
} from '../../mcp';
import type { RequestScheduler } from '../../tracker/request-scheduler';
import type { TaskTracker } from '../../tracker/tracker';
import type { HistoryRecorder } from '../history/recorder';
import type { Command, Health, InboxRequest, TrackerSettings } from '../messages';
import type { PersonRequests } from '../person-requests';
import type { TaskPartsMarks } from '../task-parts';

export type ConnectCommand = Extract<Command, { type: 'connect' }>;

/** One connection to one receiver, as the engine holds it: it outlives the sessions it opens one after another. */
export interface Connection {
  id: number;
  command: ConnectCommand;
  holder: SessionHolder;
  tap: TrafficTap;
  api: ReceiverTasksApi;
  tracker: TaskTracker;
  scheduler: RequestScheduler;
  queryClient: QueryClient;
  settings: TrackerSettings;
  people: PersonRequests;
  /** What changed since the last batch. */
  marks: TaskPartsMarks;
  health: Health;
  /** Polls held while nothing answers; a ping with backoff finds out when the receiver is back. */
  suspended: boolean;
  checkingReach: boolean;
  /** A session was up once: from then on a failure is the receiver going away, never a CORS verdict. */
  everConnected: boolean;
  /** The generation the first session settled, and how: later sessions of this connection speak it too. */
  knownEra?: Era;
  detectedBy?: Detection;
  attempt: number;
  /** The session let go when the connection stopped for a sign-in: its tasks are asked about in the next one. */
  endedSession?: string;
  retryTimer?: ReturnType<typeof setTimeout>;
  unwatch?: () => void;
  history?: HistoryRecorder;
  closed: boolean;
  stop: () => void;
  /** The receiver's sign-in, when it asked for one (kept by the host per receiver, in memory). */
  auth?: AuthClient;
  /** "Remember sign-in": every change of the sign-in goes to the page to be stored. */
  rememberSignIn?: boolean;
  /** Questions history had still waiting: answerable again if the session they were asked in is resumed. */
  waitingFromHistory: InboxRequest[];
}

/**
 * Whether trying again later can help: nothing answered, or the receiver was busy. A receiver that answered
 * and refused (no MCP endpoint, a web page, CORS, auth) will refuse again until someone changes something.
 */
export function isRetryable(error: ClassifiedError): boolean {
  if (error.diagnosis === 'cors') return false;
  if (error.kind === 'cors-or-network' || error.kind === 'timeout' || error.kind === 'rate-limited')
    return true;
  if (error.kind === 'session-lost') return true;
  return error.kind === 'other' && (error.httpStatus ?? 0) >= 500;
}

/** An answer of any kind, even a JSON-RPC error, means the receiver is there. */
export const stillAway = (error: ClassifiedError) =>
  error.kind === 'cors-or-network' || error.kind === 'timeout' || error.kind === 'session-lost';
