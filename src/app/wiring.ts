import type { QueryClient } from '@tanstack/react-query';
import type { EngineBridge } from '../engine/bridge';
import type { Batch } from '../engine/messages';
import { useConnection } from '../state/connection';
import { useInbox } from '../inbox/store';
import { useTraffic } from '../traffic/store';
import { tasksStore, usePollingHealth, useTaskListStatus } from '../tasks/store';
import { applyTaskChanges } from '../tasks/core/task-changes';
import { queryKeys } from '../tasks/core/query-keys';
import { usePreferences } from '../state/preferences';

/**
 * The one place a connection's pieces meet on the page: the engine's batches go into the stores and the
 * query cache, and preference changes go back to the engine. Returns the unsubscribe.
 */
export function wireEngine(engine: EngineBridge, queryClient: QueryClient): () => void {
  /** The connection the page's task records belong to; a batch for another one starts them afresh. */
  let tasksConnection = 0;

  const applyOne = (batch: Batch) => {
    // Traffic and the inbox are the page's record of every connection; the rest is the current one's.
    if (batch.traffic.length > 0 || batch.trafficDropped > 0)
      useTraffic.getState().pushMany(batch.traffic, batch.trafficDropped);
    if (batch.inbox.length > 0) useInbox.getState().apply(batch.inbox);
    const connection = useConnection.getState();
    if (batch.connectionId === 0 || batch.connectionId !== connection.id) return;
    if (tasksConnection !== batch.connectionId) {
      const previous = tasksConnection;
      tasksConnection = batch.connectionId;
      tasksStore.setState({
        tasks: new Map(),
        order: [],
        version: 0,
        clockOffsetMs: 0,
        clockSamples: 0,
        dialects: [],
        untrackedSeen: 0,
      });
      useTaskListStatus.setState({ loading: false, lastSyncedAt: undefined, error: undefined });
      usePollingHealth.setState({ health: undefined });
      if (previous) queryClient.removeQueries({ queryKey: queryKeys.connection(previous) });
    }
    if (batch.tasks) applyTaskChanges(tasksStore, batch.tasks);
    for (const [taskId, snapshot] of batch.snapshots)
      queryClient.setQueryData(queryKeys.task(batch.connectionId, taskId), snapshot);
    for (const [taskId, result] of batch.results)
      queryClient.setQueryData(queryKeys.taskResult(batch.connectionId, taskId), result);
    if (batch.listStatus) useTaskListStatus.setState(batch.listStatus, true);
    if (batch.polling) usePollingHealth.setState({ health: batch.polling });
    if (batch.refused) useInbox.setState({ refused: batch.refused });
    const event = batch.connection;
    if (event && connection.status === 'connected') {
      if (event.status === 'closed') useConnection.setState({ status: 'closed', degraded: undefined });
      else if (event.status === 'session-lost')
        useConnection.setState({ status: 'error', error: event.error, degraded: undefined });
      else if (event.status === 'degraded') useConnection.setState({ degraded: event });
      else if (event.status === 'stream-unstable') useConnection.setState({ streamNote: event.note });
      else useConnection.setState({ degraded: undefined });
    }
  };

  const stopBatches = engine.onBatch((batches) => batches.forEach(applyOne));

  const settings = () => {
    const { pollingPaused, minPollIntervalMs } = usePreferences.getState();
    return { paused: pollingPaused, minPollIntervalMs };
  };
  let last = settings();
  const stopSettings = usePreferences.subscribe(() => {
    const next = settings();
    if (next.paused !== last.paused || next.minPollIntervalMs !== last.minPollIntervalMs)
      void engine.request({ type: 'settings', settings: next });
    last = next;
  });

  return () => {
    stopBatches();
    stopSettings();
  };
}
