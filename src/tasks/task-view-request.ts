import { useEffect } from 'react';
import { create } from 'zustand';
import type { EngineBridge } from '../bridge/engine-bridge';
import type { TaskViewRequest } from '../engine/task-views';
import type { ListFilter } from '../tracker/list-filter';
import { useSelection } from '../state/selection';
import { tasksStore } from './tasks-store';

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
 * What the task list asks of the engine. The list shows what the engine computed for it (`useTaskList`), so a
 * filter or a search shows once its rows have come: never a frame of the old filter's rows under the new one.
 */
export const useListAsk = create<ListAsk>()(() => ({
  filter: 'all',
  query: '',
  start: 0,
  end: FIRST_ROWS,
  everything: 0,
}));

function currentRequest(): TaskViewRequest {
  const ask = useListAsk.getState();
  const selection = useSelection.getState().selection;
  return {
    all: ask.everything > 0,
    filter: ask.filter,
    query: ask.query,
    start: ask.start,
    end: ask.end,
    ...(selection.kind === 'task' ? { detail: selection.taskId } : {}),
    overview: selection.kind === 'overview',
  };
}

let engine: EngineBridge | undefined;
let lastSent = '';
/** The last request's reply: a reader asking for the same view waits for it too. */
let answered: Promise<null> = Promise.resolve(null);
let queued = false;
let overviewAsked = false;

/** Sends the request if it changed; its reply comes after the batch that brings what it asked for. */
function send(): Promise<null> {
  queued = false;
  const request = currentRequest();
  const key = JSON.stringify(request);
  if (!engine || key === lastSent) return answered;
  // Closed, the overview's summaries are let go on both sides; the next opening starts afresh.
  if (!request.overview && overviewAsked) tasksStore.getState().forgetOverview();
  overviewAsked = request.overview;
  lastSent = key;
  answered = engine.request({ type: 'taskView', view: request }).catch(() => null);
  return answered;
}

/** Many changes in one task (a scroll and a selection) make one request. */
function sendSoon(): void {
  if (queued) return;
  queued = true;
  queueMicrotask(() => void send());
}

/**
 * Tells the engine what the page shows of the tasks, now and on every change (the list's rows, its filter and
 * search, the open task, the overview); only that crosses to the page. Returns the unsubscribe.
 */
export function startTaskView(bridge: EngineBridge): () => void {
  engine = bridge;
  lastSent = '';
  answered = Promise.resolve(null);
  // At once, so that the connect that follows sends the page its rows, not every record.
  void send();
  const stopAsk = useListAsk.subscribe(sendSoon);
  const stopSelection = useSelection.subscribe(sendSoon);
  return () => {
    stopAsk();
    stopSelection();
    engine = undefined;
  };
}

/** Runs `read` with every task's record on the page, for a one-off read of them all (an export). */
export async function withEveryTask<T>(read: () => T | Promise<T>): Promise<T> {
  useListAsk.setState((s) => ({ everything: s.everything + 1 }));
  try {
    await send();
    return await read();
  } finally {
    useListAsk.setState((s) => ({ everything: s.everything - 1 }));
  }
}

/** While the calling component is mounted, the page holds every task's record (the report card). */
export function useEveryTask(): void {
  useEffect(() => {
    useListAsk.setState((s) => ({ everything: s.everything + 1 }));
    return () => useListAsk.setState((s) => ({ everything: s.everything - 1 }));
  }, []);
}

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
