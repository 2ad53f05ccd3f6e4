import type { EngineBridge } from '../bridge/engine-bridge';
import type { TaskViewRequest } from '../engine/task-views';
import { useSelection } from '../state/selection-store';
import { useListAsk } from './list-ask-store';
import { tasksStore } from './tasks-store';

/** Sends what the page shows of the tasks (the list's ask, the selection) to the engine as it changes. */

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
