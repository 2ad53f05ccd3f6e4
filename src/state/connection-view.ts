import { useShallow } from 'zustand/react/shallow';
import { useConnection, type ConnectionState } from './connection-store';
import { useReplay } from './replay-store';
import { PASSIVE_OBSERVING, observedPair, useObserve } from './observe-store';

/**
 * What the connection is, in the person's words: the one state the header, the receiver card and the main pane
 * all read, so that none of them can say "Connected" while another says the server is gone.
 * reconnecting: the session was lost and a new one is being opened. server-exited: the stdio server's process
 * ended (Restart starts it again). sign-in-needed: the receiver wants a token (Sign in). unreachable: nothing
 * answers there; retried by the engine. refused: the receiver answered and will not work as asked.
 * observing: a client's session watched through Taskscope's proxy; nothing is sent in it.
 */
export type ConnectionKind =
  | 'idle'
  | 'connecting'
  | 'connected'
  | 'degraded'
  | 'reconnecting'
  | 'server-exited'
  | 'sign-in-needed'
  | 'unreachable'
  | 'refused'
  | 'closed'
  | 'replay'
  | 'observing';

export interface ConnectionView {
  kind: ConnectionKind;
  /** The header's word for it. */
  label: string;
  /** The main pane's heading while there is a problem to show. */
  title: string;
  /** The colour of the header's dot. */
  dot: string;
  /** The connection has no working session: the main pane says why, in the receiver's own words. */
  problem: boolean;
}

type Inputs = Pick<ConnectionState, 'status' | 'error' | 'reason' | 'degraded' | 'auth'>;

const look: Record<ConnectionKind, Omit<ConnectionView, 'kind' | 'problem'>> = {
  idle: { label: 'Not connected', title: 'Not connected', dot: 'bg-slate-400' },
  connecting: { label: 'Connecting…', title: 'Connecting', dot: 'bg-amber-400 animate-pulse' },
  connected: { label: 'Connected', title: 'Connected', dot: 'bg-green-500' },
  degraded: { label: 'Degraded', title: 'Requests keep failing', dot: 'bg-amber-500' },
  reconnecting: {
    label: 'Reconnecting…',
    title: 'Session lost: reconnecting',
    dot: 'bg-amber-500 animate-pulse',
  },
  'server-exited': { label: 'Server exited', title: 'The stdio server has exited', dot: 'bg-red-500' },
  'sign-in-needed': { label: 'Sign-in needed', title: 'Sign in to use this receiver', dot: 'bg-amber-500' },
  unreachable: { label: 'Unreachable', title: 'Receiver unreachable', dot: 'bg-red-500 animate-pulse' },
  refused: { label: 'Connection failed', title: 'Could not connect', dot: 'bg-red-500' },
  closed: { label: 'Disconnected', title: 'Disconnected', dot: 'bg-slate-400' },
  replay: { label: 'Replay', title: 'Replay', dot: 'bg-violet-500' },
  observing: { label: 'Observing', title: 'Observing', dot: 'bg-teal-500' },
};

function kindOf(
  { status, error, reason, degraded, auth }: Inputs,
  replaying: boolean,
  observing: boolean,
): ConnectionKind {
  if (replaying) return 'replay';
  // Watching a client's session through the proxy: the stream's own troubles read as a connection's.
  if (observing && status === 'connected') return 'observing';
  switch (status) {
    case 'idle':
    case 'connecting':
    case 'closed':
      return status;
    case 'connected':
      return degraded ? 'degraded' : 'connected';
    case 'session-lost':
      return 'reconnecting';
    case 'unreachable':
      return 'unreachable';
    case 'error':
      if (reason === 'server-exited') return 'server-exited';
      // A 401 from a receiver that offers sign-in is a reason to sign in, whatever the answer's words.
      if (
        reason === 'sign-in-needed' ||
        (error?.httpStatus === 401 && auth !== undefined && auth.status !== 'none')
      )
        return 'sign-in-needed';
      if (error?.kind === 'cors-or-network' && error.diagnosis !== 'cors') return 'unreachable';
      return 'refused';
  }
}

const PROBLEMS = new Set<ConnectionKind>([
  'reconnecting',
  'server-exited',
  'sign-in-needed',
  'unreachable',
  'refused',
]);

/**
 * The one derivation: pure, from the connection's state and whether a replay is showing, or a client's
 * session observed (`observing`: "<client> ↔ <server>", which the header and the card name).
 */
export function connectionView(state: Inputs, replaying: boolean, observing?: string): ConnectionView {
  const kind = kindOf(state, replaying, observing !== undefined);
  const words =
    kind === 'observing' ? { label: `Observing ${observing}`, title: `Observing ${observing}` } : {};
  return { kind, ...look[kind], ...words, problem: PROBLEMS.has(kind) };
}

export function useConnectionView(): ConnectionView {
  const replaying = useReplay((s) => s.connectionId !== undefined);
  const serverName = useConnection((s) => s.server?.title ?? s.server?.name);
  const observing = useObserve((s) =>
    s.connectionId !== undefined ? observedPair(s.news, serverName) : undefined,
  );
  const inputs = useConnection(
    useShallow((s) => ({
      status: s.status,
      error: s.error,
      reason: s.reason,
      degraded: s.degraded,
      auth: s.auth,
    })),
  );
  return connectionView(inputs, replaying, observing);
}

/**
 * Why the controls that would send something to a receiver are off (a replay, an observed client's session),
 * or undefined when they work: the one reason every such control shows.
 */
export function usePassiveReason(): string | undefined {
  const replaying = useReplay((s) => s.connectionId !== undefined);
  const observing = useObserve((s) => s.connectionId !== undefined);
  if (replaying) return PASSIVE_REPLAY;
  return observing ? PASSIVE_OBSERVING : undefined;
}

export const PASSIVE_REPLAY =
  'This is a replay of a recording: no receiver is contacted, so nothing can be sent.';
