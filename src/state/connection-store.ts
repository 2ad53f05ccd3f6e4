import { create } from 'zustand';
import type { AuthView, ClassifiedError, Detection, Era, ServerDescription, ServerTaskSupport } from '../mcp';
import type { ConnectionStopReason, HistoryNews } from '../engine/messages';

/**
 * The engine's Health, plus the page's own idle and closed. session-lost and unreachable are retried by the
 * engine on its own; error waits for the person. What the page shows of it is derived in one place,
 * state/connection-view.ts.
 */
export type ConnectionStatus =
  'idle' | 'connecting' | 'connected' | 'session-lost' | 'unreachable' | 'error' | 'closed';

export interface ConnectionState {
  /** Grows with every connect, so data from an older session is never read as the current one's. */
  id: number;
  url: string;
  headers: Record<string, string>;
  status: ConnectionStatus;
  /** Since when the connection has been in this status. */
  since?: number;
  /** When the engine tries again, while retrying. */
  retryAt?: number;
  attempt?: number;
  server?: ServerDescription;
  support?: ServerTaskSupport;
  error?: ClassifiedError;
  /** Why the engine stopped the connection, beyond the error's kind (connection-view.ts reads it). */
  reason?: ConnectionStopReason;
  sessionId?: string;
  /** The protocol generation spoken, and how it was settled. */
  era?: Era;
  detectedBy?: Detection;
  /** The session was taken up again after a reload. */
  resumed?: boolean;
  /** Connected again after an outage or a lost session. */
  recoveredAt?: number;
  /** Requests go through `npm start`'s local relay (the receiver does not allow this origin). */
  viaRelay?: boolean;
  /** Set while requests keep failing on a connected session: how many, since when, the last error. */
  degraded?: { failures: number; since: number; error: ClassifiedError };
  /** Set when the notification stream keeps closing right after it opens. */
  streamNote?: string;
  /** What became of history for this receiver (restored, full, unavailable). */
  history?: HistoryNews;
  /** The receiver's sign-in, once it asked for one: never a token, a code or a verifier. */
  auth?: AuthView;
}

export const useConnection = create<ConnectionState>()(() => ({
  id: 0,
  url: '',
  headers: {},
  status: 'idle',
}));

/**
 * The state of a connection that starts now (a connect, a replay, an observed session): what the previous one
 * learnt (server, session, errors, sign-in, history) is gone, so no place shows it under the new id.
 */
export function startingConnection(
  id: number,
  url: string,
  headers: Record<string, string>,
  more: Pick<ConnectionState, 'viaRelay'> = {},
): void {
  useConnection.setState({
    id,
    url,
    headers,
    status: 'connecting',
    since: Date.now(),
    retryAt: undefined,
    server: undefined,
    support: undefined,
    error: undefined,
    reason: undefined,
    sessionId: undefined,
    resumed: undefined,
    recoveredAt: undefined,
    viaRelay: more.viaRelay,
    degraded: undefined,
    streamNote: undefined,
    history: undefined,
    auth: undefined,
  });
}
