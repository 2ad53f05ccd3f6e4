import { create } from 'zustand';
import { mergeFindings } from '../rules/evaluate';
import type { ActiveCheckState, RuleResult } from '../rules/report-types';
import { useConnection } from '../state/connection-store';

interface ReportState {
  open: boolean;
  /** The active check's latest state, for the connection it ran on (a new connection starts without one). */
  check?: {
    connectionId: number;
    state: ActiveCheckState;
    /** What earlier runs on this connection found: a stopped rerun does not erase it. */
    earlier: RuleResult[];
  };
  /** Why the last check could not start. */
  checkError?: string;
}

/** The report card: open or not, and the active check's progress as the engine reports it. */
export const useReport = create<ReportState>()(() => ({ open: false }));

/** The card's open state is mirrored in ?report=1, so a link opens it (like ?task= for a task). */
function mirror(open: boolean): void {
  const url = new URL(window.location.href);
  if (open) url.searchParams.set('report', '1');
  else url.searchParams.delete('report');
  window.history.replaceState(window.history.state, '', url);
}

export function openReport(): void {
  useReport.setState({ open: true });
  mirror(true);
}

export function closeReport(): void {
  useReport.setState({ open: false });
  mirror(false);
}

/** The engine's news about the check, for the connection the batch belongs to. */
export function applyCheckNews(connectionId: number, state: ActiveCheckState): void {
  const before = useReport.getState().check;
  const sameConnection = before?.connectionId === connectionId;
  const earlier = !sameConnection
    ? []
    : before.state.startedAt === state.startedAt
      ? before.earlier
      : mergeFindings(before.earlier, before.state.findings);
  useReport.setState({ check: { connectionId, state, earlier } });
}

/**
 * The check of the current connection, if one ran, with the findings of earlier runs under the latest's (a
 * rule the latest run did not reach keeps what an earlier one found).
 */
export function currentCheck(
  state: Pick<ReportState, 'check'>,
  connectionId: number,
): ActiveCheckState | undefined {
  const check = state.check;
  if (check?.connectionId !== connectionId) return undefined;
  if (check.earlier.length === 0) return check.state;
  return { ...check.state, findings: mergeFindings(check.earlier, check.state.findings) };
}

/**
 * `?report=1`: the card opens once the page is connected (its verdicts need a receiver), once per page load.
 * Returns the unsubscribe.
 */
export function openReportWhenConnected(search = window.location.search): () => void {
  if (new URLSearchParams(search).get('report') !== '1') return () => undefined;
  const openIfConnected = (status: string) => {
    if (status !== 'connected') return false;
    openReport();
    return true;
  };
  if (openIfConnected(useConnection.getState().status)) return () => undefined;
  const stop = useConnection.subscribe((state) => {
    if (openIfConnected(state.status)) stop();
  });
  return stop;
}
