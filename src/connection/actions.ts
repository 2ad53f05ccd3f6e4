import { getEngine } from '../engine/bridge';
import { resetTaskRecords } from '../tasks/store';
import { usePreferences } from '../state/preferences';
import { useSelection } from '../state/selection';
import { useConnection } from '../state/connection';
import { normaliseReceiverUrl } from './receiver-url';

/** Where the dashboard connects when no ?server= is given: the demo receiver `npm start` mounts beside it. */
export const demoReceiverUrl = () => new URL('/demo/mcp', window.location.origin).toString();

/** A URL only if it is http(s); one typed without a scheme gets one (see receiver-url.ts). */
export function parseReceiverUrl(raw: string): URL | null {
  return normaliseReceiverUrl(raw, window.location.origin);
}

export async function disconnect(): Promise<void> {
  const { status } = useConnection.getState();
  // A newer id makes any connect still on its way stale.
  useConnection.setState((s) => ({
    id: s.id + 1,
    status: status === 'idle' ? 'idle' : 'closed',
    degraded: undefined,
  }));
  resetTaskRecords();
  await getEngine().request({ type: 'disconnect' });
}

/**
 * Opens a session in the engine and makes it the current one. Started from user actions and from boot, never
 * from a component effect: StrictMode would run that twice and open two sessions. A connect overtaken by a
 * newer one (or a disconnect) leaves no trace: the engine closes its session and its answer is ignored.
 */
export async function connect(rawUrl: string, headers: Record<string, string> = {}): Promise<void> {
  const url = parseReceiverUrl(rawUrl);
  const id = useConnection.getState().id + 1;
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
    // The previous session must not go on polling unseen behind this error.
    resetTaskRecords();
    await getEngine().request({ type: 'disconnect' });
    return;
  }
  useConnection.setState({
    id,
    url: url.toString(),
    headers,
    status: 'connecting',
    degraded: undefined,
    streamNote: undefined,
    server: undefined,
    support: undefined,
    error: undefined,
  });
  resetTaskRecords();
  const { pollingPaused, minPollIntervalMs } = usePreferences.getState();
  const selection = useSelection.getState().selection;
  const reply = await getEngine().request({
    type: 'connect',
    connectionId: id,
    url: url.toString(),
    headers,
    settings: { paused: pollingPaused, minPollIntervalMs },
    followTaskId: selection.kind === 'task' ? selection.taskId : undefined,
  });
  if (useConnection.getState().id !== id) return;
  if (reply.ok) useConnection.setState({ status: 'connected', server: reply.server, support: reply.support });
  else if (!reply.stale) useConnection.setState({ status: 'error', error: reply.error });
}

/** The receiver a page load should connect to: ?server= wins, then the demo receiver. */
export function initialServerUrl(search = window.location.search): string {
  return new URLSearchParams(search).get('server') ?? demoReceiverUrl();
}
