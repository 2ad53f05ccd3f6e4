import { getEngine } from '../bridge/engine-bridge';
import { useConnection } from '../state/connection';
import { applyCheckNews, useReport } from './report-store';

/** Runs the active check on the current receiver (the person confirmed it); progress comes as engine news. */
export async function startCheck(tool: string | undefined): Promise<void> {
  const connectionId = useConnection.getState().id;
  useReport.setState({ checkError: undefined });
  try {
    const reply = await getEngine().request({ type: 'checkReceiver', tool });
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
