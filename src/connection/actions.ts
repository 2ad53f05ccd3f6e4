import { McpSession, TasksApi, TrafficTap, classifyError, serverTaskSupport } from '../mcp';
import { useTraffic } from '../traffic/store';
import { useSelection } from '../app/selection';
import { createInboxHandler, dropConnection } from '../inbox/actions';
import { TaskTracker, type Clock } from '../tasks/tracker';
import { createWorkerClock } from '../tasks/worker-clock';
import { refreshTaskList } from '../tasks/actions';
import { queryClient } from '../app/queryClient';
import { queryKeys } from '../app/queryKeys';
import { usePreferences } from '../app/preferences';
import { setRuntime } from './runtime';
import { useConnection } from './store';

/** One worker's timers serve every connection of the page. */
let clock: Clock | undefined;
const backgroundSafeClock = () => (clock ??= createWorkerClock());

/** Where the dashboard connects when no ?server= is given: the demo receiver `npm start` mounts beside it. */
export const demoReceiverUrl = () => new URL('/demo/mcp', window.location.origin).toString();

/** A URL only if it is http(s): a receiver address is typed by people and pasted from anywhere. */
export function parseReceiverUrl(raw: string): URL | null {
  try {
    const url = new URL(raw.trim(), window.location.origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

export async function disconnect(): Promise<void> {
  const previous = setRuntime(null);
  if (previous) {
    useConnection.setState({ status: 'closed' });
    await previous.dispose();
  }
}

/**
 * Opens a session and makes it the current one. Started from user actions and from boot, never from a
 * component effect: StrictMode would run that twice and open two sessions.
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
    return;
  }
  await disconnect();
  useConnection.setState({
    id,
    url: url.toString(),
    headers,
    status: 'connecting',
    server: undefined,
    support: undefined,
    error: undefined,
  });
  try {
    const tap = new TrafficTap();
    tap.subscribe(useTraffic.getState().push);
    const session = await McpSession.connect({ url: url.toString(), headers, tap });
    if (useConnection.getState().id !== id) {
      // Another connect started while this one was on its way; this session is nobody's now.
      await session.close();
      return;
    }
    const api = new TasksApi(session);
    const server = session.describeServer();
    const settings = () => {
      const { pollingPaused, minPollIntervalMs } = usePreferences.getState();
      return { paused: pollingPaused, minPollIntervalMs };
    };
    const tracker = new TaskTracker({
      api,
      queryClient,
      connectionId: id,
      settings,
      clock: backgroundSafeClock(),
      // Newer receivers (2026-07-28) carry input requests in tasks/get and have no tasks/result to open.
      openResultForInput: !server.protocolVersion?.startsWith('2026'),
    });
    session.setServerRequestHandler(createInboxHandler(id));
    let last = settings();
    const stopWatchingSettings = usePreferences.subscribe(() => {
      const next = settings();
      if (next.paused !== last.paused || next.minPollIntervalMs !== last.minPollIntervalMs)
        tracker.settingsChanged();
      last = next;
    });
    setRuntime({
      connectionId: id,
      session,
      api,
      tracker,
      dispose: async () => {
        stopWatchingSettings();
        tracker.dispose();
        dropConnection(id);
        await session.close();
        queryClient.removeQueries({ queryKey: queryKeys.connection(id) });
      },
    });
    session.onSessionLost = () => {
      if (useConnection.getState().id !== id || useConnection.getState().status !== 'connected') return;
      useConnection.setState({
        status: 'error',
        error: {
          kind: 'session-lost',
          message:
            'The receiver no longer knows this session, and its tasks went with it: reconnect to start a new one.',
        },
      });
    };
    session.onClose = () => {
      if (useConnection.getState().id === id && useConnection.getState().status === 'connected') {
        useConnection.setState({ status: 'closed' });
      }
    };
    useConnection.setState({ status: 'connected', server, support: serverTaskSupport(server.capabilities) });
    void queryClient.prefetchQuery({ queryKey: queryKeys.tools(id), queryFn: () => api.listTools() });
    void (async () => {
      if (api.support.list) await refreshTaskList();
      // A deep link (?task=) to a task tasks/list did not bring: follow it, so the page says what became of it.
      const selection = useSelection.getState().selection;
      if (selection.kind === 'task' && !tracker.isTracked(selection.taskId))
        tracker.track(selection.taskId, { origin: 'manual' });
    })();
  } catch (error) {
    if (useConnection.getState().id !== id) return;
    useConnection.setState({ status: 'error', error: classifyError(error, { method: 'initialize' }) });
  }
}

/** The receiver a page load should connect to: ?server= wins, then the demo receiver. */
export function initialServerUrl(search = window.location.search): string {
  return new URLSearchParams(search).get('server') ?? demoReceiverUrl();
}
