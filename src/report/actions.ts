import { getEngine } from '../bridge/engine-bridge';
import { useConnection } from '../state/connection-store';
import { rememberRunArgs } from '../tools/run-drafts-store';
import { applyCheckNews, useReport } from './report-store';

/**
 * Runs the active check on the current receiver (the person confirmed it), with `tool` and the arguments given
 * for it, which the dialog offers again next time; progress comes as engine news.
 */
export async function startCheck(tool: string | undefined, args?: Record<string, unknown>): Promise<void> {
  const { id: connectionId, url } = useConnection.getState();
  useReport.setState({ checkError: undefined });
  if (tool !== undefined && args !== undefined) rememberRunArgs(url, tool, args);
  try {
    const reply = await getEngine().request({ type: 'checkReceiver', tool, args });
    if (!reply.ok) useReport.setState({ checkError: reply.reason });
    else if (useConnection.getState().id === connectionId) applyCheckNews(connectionId, reply.state);
  } catch (error) {
    useReport.setState({ checkError: error instanceof Error ? error.message : String(error) });
  }
}

/** Stops the running check; it cancels the tasks it started on its way out. */
export function stopCheck(): void {
  void getEngine()
    .request({ type: 'stopCheck' })
    .catch(() => undefined);
}
