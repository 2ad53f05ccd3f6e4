import { getEngine } from '../bridge/engine-bridge';
import { startingConnection, useConnection } from '../state/connection-store';
import { endReplay } from '../state/replay-store';
import { useObserve } from '../state/observe-store';
import { useSelection } from '../state/selection-store';
import { startPageRecords } from '../tasks/page-records';
import { fetchServerToken } from './relay-route';

/**
 * Watches what Taskscope's proxy saw pass between a client and its server (`?observe=NAME`): the page's
 * connection becomes the observed session, its tasks, traffic and questions built from what passed. `session`
 * picks one of the source's client sessions (the picker), else the engine shows the newest. Started from boot
 * and from the picker, never from an effect.
 */
export async function observe(source: string, session?: string): Promise<void> {
  const id = useConnection.getState().id + 1;
  const picking = useObserve.getState().source === source && useObserve.getState().connectionId !== undefined;
  endReplay();
  useObserve.setState((s) => ({ connectionId: id, source, news: picking ? s.news : undefined }));
  // Another session's tasks are not this one's: what was open goes, and so do the log and the inbox.
  if (picking) useSelection.getState().select({ kind: 'none' });
  startingConnection(id, '', {});
  startPageRecords('none');
  const token = await fetchServerToken();
  if (useConnection.getState().id !== id) return;
  if (!token.ok) {
    useConnection.setState({ status: 'error', error: { kind: 'other', message: token.message } });
    return;
  }
  useObserve.setState({ token: token.token });
  const reply = await getEngine().request({
    type: 'observe',
    connectionId: id,
    source,
    ...(session !== undefined ? { session } : {}),
    server: { url: window.location.origin, token: token.token },
  });
  if (useConnection.getState().id !== id) return;
  if (!reply.ok) {
    useConnection.setState({ status: 'error', error: reply.error });
    return;
  }
  useObserve.setState((s) => ({ news: s.news ?? { ...reply.source, sessions: [] } }));
  // The header's field offers the client's server itself (an HTTP one), to leave the observing for; the report
  // card names it.
  if (reply.source.kind === 'http') useConnection.setState({ url: reply.source.upstream });
}

/** The source a page load should observe: `?observe=NAME`, or none. */
export function initialObserveSource(search = window.location.search): string | null {
  const name = new URLSearchParams(search).get('observe');
  return name !== null && name.trim() !== '' ? name.trim().slice(0, 200) : null;
}
