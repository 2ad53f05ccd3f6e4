import { useInbox } from '../inbox/inbox-store';
import { clearTrafficLog } from '../traffic/traffic-store';
import { tasksStore } from './tasks-store';

/**
 * What the page's log (traffic and the inbox) keeps when its records start afresh:
 * - `all`: the log is the page's record of every connection it made; only the task records go.
 * - `pending`: history brings this receiver's traffic and answered requests back, so the page's copies go;
 *   questions still waiting for a person stay.
 * - `none`: a replay (or leaving one) shows the recording's log alone.
 */
export type LogKept = 'all' | 'pending' | 'none';

/** The one way the page starts its records for a new connection, a replay, or a seek within one. */
export function startPageRecords(log: LogKept): void {
  tasksStore.getState().reset();
  clearLog(log);
}

/** Empties the page's log down to what `kept` says; the task records stay. */
export function clearLog(kept: LogKept): void {
  if (kept === 'all') return;
  clearTrafficLog();
  useInbox.setState((s) => ({ items: kept === 'none' ? [] : s.items.filter((i) => i.state === 'pending') }));
}
