import { useEffect } from 'react';
import { create } from 'zustand';
import type { ListFilter } from '../tracker/list-filter';

/** Rows asked for before the list has measured itself: more than a tall screen holds. */
export const FIRST_ROWS = 80;

interface ListAsk {
  filter: ListFilter;
  query: string;
  /** The list's rows the page wants held: those drawn, with a screen's margin either side. */
  start: number;
  end: number;
  /** Things that read every task's record (the report card, an export) while they run. */
  everything: number;
}

/**
 * What the task list asks of the engine (`tasks/task-view-request.ts` sends it). The list shows what the engine
 * computed for it (the tasks store's `list`), so a filter or a search shows once its rows have come: never a
 * frame of the old filter's rows under the new one.
 */
export const useListAsk = create<ListAsk>()(() => ({
  filter: 'all',
  query: '',
  start: 0,
  end: FIRST_ROWS,
  everything: 0,
}));

/** Asks for the list under a filter and a search; the list follows once the engine's rows have come. */
export function askList(change: Partial<Pick<ListAsk, 'filter' | 'query'>>): void {
  const ask = useListAsk.getState();
  if ((change.filter ?? ask.filter) === ask.filter && (change.query ?? ask.query) === ask.query) return;
  // A new filter starts at the top, where the list scrolls back to (the list reports its rows again if not).
  useListAsk.setState((s) => ({ ...change, start: 0, end: Math.max(FIRST_ROWS, s.end - s.start) }));
}

/** The rows drawn moved: keep a screen's margin held either side, asking anew only when it runs short. */
export function askRows(first: number, last: number): void {
  const { start, end } = useListAsk.getState();
  const shown = Math.max(1, last - first + 1);
  const margin = Math.max(10, shown);
  const short = (first < start + margin / 2 && start > 0) || last >= end - margin / 2;
  if (!short) return;
  const nextStart = Math.max(0, first - margin);
  useListAsk.setState({ start: nextStart, end: Math.max(nextStart + FIRST_ROWS, last + 1 + margin) });
}

/** While the calling component is mounted, the page holds every task's record (the report card). */
export function useEveryTask(): void {
  useEffect(() => {
    useListAsk.setState((s) => ({ everything: s.everything + 1 }));
    return () => useListAsk.setState((s) => ({ everything: s.everything - 1 }));
  }, []);
}
