import { useMemo } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { ToolInfo, Warning } from '../mcp';
import { getEngine } from '../bridge/engine-bridge';
import { useConnection } from '../state/connection-store';
import { useNow } from '../state/clock';
import { tasksStore, useTasks } from '../tasks/tasks-store';
import { useEveryTask } from '../tasks/list-ask-store';
import { trafficEventsOf, useTraffic, useTrafficMirror } from '../traffic/traffic-store';
import { queryKeys } from '../tracker/queries';
import { evaluateReport, withActiveCheck } from '../rules/evaluate';
import type { ActiveCheckState, ReportCard } from '../rules/report-types';
import { currentCheck, useReport } from './report-store';

/** The card is judged again at most this often while it is open: the rules walk every timeline and message. */
const EVERY_MS = 1000;

/** The receiver's tools, from the same query (and cache entry) as the tool list. */
export function useReceiverTools(): ToolInfo[] {
  const { id, status } = useConnection();
  const tools = useQuery({
    queryKey: queryKeys.tools(id),
    queryFn: (): Promise<{ tools: ToolInfo[]; warnings: Warning[] }> =>
      getEngine().request({ type: 'listTools' }),
    enabled: status === 'connected',
  });
  return tools.data?.tools ?? [];
}

/** The check of the current connection, if one ran or runs. */
export function useActiveCheck(): ActiveCheckState | undefined {
  const id = useConnection((s) => s.id);
  const check = useReport((s) => s.check);
  return useMemo(() => currentCheck({ check }, id), [check, id]);
}

/** Judges the card from what the page holds now: tasks, snapshots, results, traffic, the check's findings. */
export function buildReportCard(queryClient: QueryClient, check: ActiveCheckState | undefined): ReportCard {
  const connection = useConnection.getState();
  const { tasks, snapshots, results, clockOffsetMs, clockSamples } = tasksStore.getState();
  const tools = queryClient.getQueryData<{ tools: ToolInfo[] }>(queryKeys.tools(connection.id))?.tools;
  const passive = evaluateReport({
    receiver: { url: connection.url, era: connection.era, server: connection.server },
    support: connection.support ?? { list: false, cancel: false, toolCall: false },
    tools: tools ?? [],
    tasks: tasks.values(),
    snapshots,
    results,
    // This connection's messages only: another receiver's answers are no evidence about this one.
    traffic: trafficEventsOf(connection.id),
    clockOffsetMs,
    clockSamples,
    auth: connection.auth,
    now: Date.now(),
  });
  return withActiveCheck(passive, check);
}

/** The card while it is open, judged again every second and whenever the check moves on. */
export function useReportCard(): ReportCard {
  const queryClient = useQueryClient();
  const check = useActiveCheck();
  const tick = Math.floor(useNow() / EVERY_MS);
  // The rules read every message and every task: the page holds them all while the card is open.
  useTrafficMirror();
  useEveryTask();
  // Judged again the moment the page holds them all, not a second later on a partial page.
  const trafficSynced = useTraffic((s) => s.synced);
  const tasksWhole = useTasks((s) => s.list?.all === true);
  const synced = trafficSynced && tasksWhole;
  return useMemo(
    () => buildReportCard(queryClient, check),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- tick is the throttle: the stores are read, not watched
    [queryClient, check, tick, synced],
  );
}
