import type { EngineBridge } from '../bridge/engine-bridge';
import type { Batch } from '../engine/messages';
import { useConnection } from '../state/connection-store';
import { useInbox } from '../inbox/inbox-store';
import { applyTrafficBatch } from '../traffic/traffic-store';
import { tasksStore, type TaskBatch } from '../tasks/tasks-store';
import { startTaskView } from '../tasks/task-view-request';
import { usePreferences } from '../state/preferences-store';
import { applyHealth } from '../receiver/actions';
import { storeRememberedSignIn } from '../receiver/remembered-sign-ins';
import { applyCheckNews, openReportWhenConnected } from '../report/report-store';
import { useReplay } from '../state/replay-store';
import { useObserve } from '../state/observe-store';

/** What of a batch the tasks store takes for a connection it belongs to, current or closed. */
const taskParts = ({ tasks, snapshots, results, taskList, overview }: Batch): TaskBatch => ({
  tasks,
  snapshots,
  results,
  taskList,
  overview,
});

/**
 * The one place a connection's pieces meet on the page: the engine's batches go into the stores, and
 * preference changes go back to the engine. Returns the unsubscribe.
 */
export function wireEngine(engine: EngineBridge): () => void {
  const applyOne = (batch: Batch) => {
    // A replay seeking starts a new connection id: what the one before it still sends is not shown.
    const replayId = useReplay.getState().connectionId;
    if (replayId !== undefined && batch.connectionId !== replayId) return;
    // Traffic and the inbox are the page's record of every connection; the rest is the current one's.
    applyTrafficBatch(batch);
    if (batch.inbox.length > 0) useInbox.getState().apply(batch.inbox);
    const connection = useConnection.getState();
    if (batch.connectionId === 0) return;
    const tasks = tasksStore.getState();
    // After Disconnect the page's task records still belong to the closed connection: the engine keeps serving
    // its tasks to the page's list, filter and detail until the next connection starts.
    if (batch.connectionId !== connection.id) {
      if (batch.connectionId === tasks.connectionId) tasks.apply(taskParts(batch));
      return;
    }
    if (tasks.connectionId !== batch.connectionId) tasks.reset(batch.connectionId);
    if (batch.replay) useReplay.setState({ news: batch.replay });
    tasks.apply({ ...taskParts(batch), listStatus: batch.listStatus, polling: batch.polling });
    if (batch.refused) useInbox.setState({ refused: batch.refused });
    const news = batch.connection;
    if (news?.health) applyHealth(news.health);
    if (news?.history) useConnection.setState({ history: news.history });
    if (news?.auth) useConnection.setState({ auth: news.auth });
    if (news?.rememberedSignIn !== undefined) storeRememberedSignIn(connection.url, news.rememberedSignIn);
    if (news?.degraded !== undefined) useConnection.setState({ degraded: news.degraded ?? undefined });
    if (news?.streamNote) useConnection.setState({ streamNote: news.streamNote });
    if (news?.check) applyCheckNews(batch.connectionId, news.check);
    if (news?.observed && useObserve.getState().connectionId === batch.connectionId)
      useObserve.setState({ news: news.observed });
  };

  const stopView = startTaskView(engine);
  const stopBatches = engine.onBatch((batches) => {
    // One batch that cannot be applied must not cost the others (task changes are sent only once).
    for (const batch of batches) {
      try {
        applyOne(batch);
      } catch (error) {
        console.error('Taskscope: a batch from the engine could not be applied', error);
      }
    }
  });

  const settings = () => {
    const { pollingPaused, minPollIntervalMs } = usePreferences.getState();
    return { paused: pollingPaused, minPollIntervalMs };
  };
  let last = settings();
  let preserve = usePreferences.getState().preserveLog;
  const stopSettings = usePreferences.subscribe((prefs) => {
    const next = settings();
    if (next.paused !== last.paused || next.minPollIntervalMs !== last.minPollIntervalMs)
      void engine.request({ type: 'settings', settings: next });
    last = next;
    if (prefs.preserveLog !== preserve) void engine.request({ type: 'preserve', on: prefs.preserveLog });
    preserve = prefs.preserveLog;
  });

  // ?report=1 opens the report card once connected.
  const stopReport = openReportWhenConnected();

  return () => {
    stopView();
    stopBatches();
    stopSettings();
    stopReport();
  };
}
