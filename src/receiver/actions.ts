import { getEngine } from '../bridge/engine-bridge';
import type { Health } from '../engine/messages';
import type {
  AuthCallback,
  PendingSignIn,
  RelayRoute,
  ResumeSession,
  ServerDescription,
  StdioRoute,
} from '../mcp';
import { clearLog, startPageRecords } from '../tasks/page-records';
import { usePreferences } from '../state/preferences-store';
import { useSelection } from '../state/selection-store';
import { startingConnection, useConnection } from '../state/connection-store';
import { endReplay, isReplaying, useReplay } from '../state/replay-store';
import { endObserving, isObserving } from '../state/observe-store';
import { receiverFromParam } from '../state/address-bar';
import { normaliseReceiverUrl } from './receiver-url';
import { SessionClaims, forgetSession, rememberSession, storedSession } from './session-claim';
import { headersFor, recordUse, relayChosen } from './saved-receivers-store';
import { fetchRelayRoute } from './relay-route';
import { closeStdio, openStdioRoute, stdioNameOf, stdioPageHiding } from './stdio-bridge-route';
import { eraChoice } from './era-choice';
import { callbackUri, choiceOfTrip } from './auth-actions';
import { authChoiceFor, setAuthChoice } from './sign-in-store';
import { isSignInRemembered, rememberedSignIn } from './remembered-sign-ins';

/** A URL only if it is http(s); one typed without a scheme gets one (see receiver-url.ts). */
export function parseReceiverUrl(raw: string): URL | null {
  return normaliseReceiverUrl(raw, window.location.origin);
}

/** One per page: which receiver sessions this tab holds, so a duplicated tab opens its own. */
let claims: SessionClaims | undefined;
const sessionClaims = () => (claims ??= new SessionClaims());

/**
 * Ends the session on the receiver (DELETE): only here, never on a reload or a new connect, where the session
 * is left to be resumed or to expire. What was observed stays on the page, marked as its session's.
 */
export async function disconnect(): Promise<void> {
  const { status, url } = useConnection.getState();
  endReplay();
  endObserving();
  // A newer id would make a connect still on its way stale; the records stay with the id they came with.
  useConnection.setState({
    status: status === 'idle' ? 'idle' : 'closed',
    degraded: undefined,
    retryAt: undefined,
    since: Date.now(),
  });
  forgetSession(url);
  sessionClaims().release(url);
  await getEngine().request({ type: 'disconnect' });
  // A stdio server's process is this connection's: it ends with it (2026-07-28 sends no DELETE to say so).
  await closeStdio();
  // Bump after the engine's last batch (the tasks marked as their session's) has been applied.
  useConnection.setState((s) => ({ id: s.id + 1 }));
}

export interface ConnectOptions {
  /** Take up this tab's session from before the reload, if no other tab holds it and the receiver still knows it. */
  resume?: boolean;
  /**
   * The task or tool open belongs to this receiver (the address said both). Otherwise a new receiver closes
   * them: its first question must not be about another receiver's task id.
   */
  keepSelection?: boolean;
  /** Back from a same-tab sign-in: the engine finishes it before the first request. */
  returning?: { trip: PendingSignIn; callback: AuthCallback };
}

/**
 * Opens a connection in the engine and makes it the current one. Started from user actions and from boot,
 * never from a component effect: StrictMode would run that twice and open two sessions. A connect overtaken
 * by a newer one (or a disconnect) leaves no trace: the engine drops it and its answer is ignored.
 */
export async function connect(
  rawUrl: string,
  headers: Record<string, string> = {},
  options: ConnectOptions = {},
): Promise<void> {
  const url = parseReceiverUrl(rawUrl);
  const id = useConnection.getState().id + 1;
  const previousUrl = useConnection.getState().url;
  const selected = useSelection.getState().selection;
  if (
    !options.keepSelection &&
    previousUrl !== '' &&
    previousUrl !== (url?.toString() ?? rawUrl) &&
    (selected.kind === 'task' || selected.kind === 'tool')
  )
    useSelection.getState().select({ kind: 'none' });
  // The trace's rows are not this receiver's: the log and the inbox start from what it sends. (A replay
  // started from clean stores, so its log holds nothing else.)
  const leavingReplay = useReplay.getState().connectionId !== undefined || isObserving();
  endReplay();
  endObserving();
  if (!url) {
    useConnection.setState({
      id,
      url: rawUrl,
      headers,
      status: 'error',
      server: undefined,
      support: undefined,
      error: { kind: 'other', message: `"${rawUrl}" is not an http(s) URL.` },
    });
    // The previous receiver must not go on being polled unseen behind this error; its session is left to
    // expire (a typo is no reason to end it).
    startPageRecords(leavingReplay ? 'none' : 'all');
    await getEngine().request({ type: 'disconnect', end: false });
    return;
  }
  const href = url.toString();
  const viaRelay = relayChosen(href);
  startingConnection(id, href, headers, { viaRelay });
  recordUse(href, headers);
  const { pollingPaused, minPollIntervalMs, preserveLog } = usePreferences.getState();
  startPageRecords(leavingReplay ? 'none' : preserveLog ? 'pending' : 'all');
  let relay: RelayRoute | undefined;
  if (viaRelay) {
    const route = await fetchRelayRoute();
    if (useConnection.getState().id !== id) return;
    if (!route.ok) {
      useConnection.setState({ status: 'error', error: { kind: 'other', message: route.message } });
      await getEngine().request({ type: 'disconnect', end: false });
      return;
    }
    relay = route.route;
  }
  let stdio: StdioRoute | undefined;
  const stdioName = stdioNameOf(href);
  if (stdioName !== undefined) {
    const route = await openStdioRoute(href, stdioName);
    if (useConnection.getState().id !== id) return;
    if (!route.ok) {
      useConnection.setState({ status: 'error', error: { kind: 'other', message: route.message } });
      await getEngine().request({ type: 'disconnect', end: false });
      return;
    }
    stdio = route.route;
  } else void closeStdio();
  const resume = options.resume ? await resumable(href) : undefined;
  if (useConnection.getState().id !== id) return;
  const selection = useSelection.getState().selection;
  // Back from a same-tab sign-in: the client identity the person chose comes back with it.
  if (options.returning) setAuthChoice(href, choiceOfTrip(options.returning.trip));
  await getEngine().request({
    type: 'connect',
    connectionId: id,
    url: href,
    headers,
    settings: { paused: pollingPaused, minPollIntervalMs },
    followTaskId: selection.kind === 'task' ? selection.taskId : undefined,
    resume,
    relay,
    stdio,
    preserve: preserveLog,
    era: eraChoice(href),
    // A stdio server has no HTTP to sign in over.
    auth: stdio
      ? undefined
      : {
          redirectUri: callbackUri(),
          choice: authChoiceFor(href),
          remember: isSignInRemembered(href),
          remembered: rememberedSignIn(href),
          returning: options.returning,
        },
  });
}

/** This tab's session for `url` from before a reload, when no other tab (a duplicate of this one) holds it. */
async function resumable(url: string): Promise<ResumeSession | undefined> {
  const stored = storedSession(url);
  const server = stored?.server as ServerDescription | undefined;
  if (!stored || typeof server?.name !== 'string' || typeof server.capabilities !== 'object')
    return undefined;
  if (!(await sessionClaims().claim(url, stored.sessionId))) {
    // A duplicated tab: the session is the other tab's; this one opens its own and must not resume it later.
    forgetSession(url);
    return undefined;
  }
  return { sessionId: stored.sessionId, protocolVersion: stored.protocolVersion, server };
}

/** The engine's word on the connection: kept for the header, and the session kept for a reload. */
export function applyHealth(health: Health): void {
  const { url, status } = useConnection.getState();
  // After Disconnect the page has moved on, whatever the engine had still to say about that connection.
  if (status === 'closed') return;
  useConnection.setState({
    status: health.status,
    since: health.since,
    retryAt: health.retryAt,
    attempt: health.attempt,
    error: health.error,
    reason: health.reason,
    recoveredAt: health.recoveredAt,
    ...(health.status === 'connected'
      ? {
          server: health.server,
          support: health.support,
          sessionId: health.sessionId,
          resumed: health.resumed,
          era: health.era,
          detectedBy: health.detectedBy,
          degraded: undefined,
        }
      : {}),
  });
  // A replay's receiver is a recording, an observed one the client's: this tab's own session is left as it is.
  if (health.status !== 'connected' || isReplaying() || isObserving()) return;
  if (health.sessionId && health.server) {
    rememberSession({
      url,
      sessionId: health.sessionId,
      protocolVersion: health.protocolVersion,
      server: health.server,
      savedAt: Date.now(),
    });
    sessionClaims().hold(url, health.sessionId);
  } else forgetSession(url);
}

/** Clear, as in devtools: ended tasks, traffic and answered requests go, here and in storage; live tasks stay. */
export async function clearHistory(): Promise<void> {
  await getEngine().request({ type: 'clearHistory' });
  clearLog('pending');
}

/** The receiver a page load should connect to: ?server= wins, then the demo receiver. */
export function initialServerUrl(search = window.location.search): string {
  return receiverFromParam(new URLSearchParams(search).get('server'));
}

/** Headers for a receiver the page connects to by itself: the tab's, or those the person chose to remember. */
export function initialHeaders(rawUrl: string): Record<string, string> {
  const url = parseReceiverUrl(rawUrl);
  return url ? headersFor(url.toString()) : {};
}

/**
 * The page is going away (reload, close): write what history has pending; the session stays open. A stdio
 * server's process is this page's alone, so it is stopped (a reload starts another).
 */
export function pageHiding(event?: PageTransitionEvent): void {
  void getEngine().request({ type: 'flush' });
  stdioPageHiding(event?.persisted ?? false);
}
