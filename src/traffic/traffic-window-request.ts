import { useEffect } from 'react';
import { create } from 'zustand';
import { getEngine } from '../bridge/engine-bridge';
import type { TrafficWindowRequest } from '../engine/traffic-window';
import { useConnection } from '../state/connection-store';
import { setWindowWanted } from './traffic-store';
import { useTrafficView } from './traffic-view-store';

/** Rows asked for before the table has measured itself: more than a tall drawer holds. */
export const FIRST_ROWS = 80;

interface TrafficAsk {
  /** The filtered rows the page wants held: those drawn, with a screen's margin either side. */
  start: number;
  end: number;
}

/** The drawer's rows asked of the engine (the table's range). */
export const useTrafficAsk = create<TrafficAsk>()(() => ({ start: 0, end: FIRST_ROWS }));

/** The rows drawn moved: keep a screen's margin held either side, asking anew only when it runs short. */
export function askTrafficRows(first: number, last: number): void {
  const { start, end } = useTrafficAsk.getState();
  const shown = Math.max(1, last - first + 1);
  const margin = Math.max(10, shown);
  const short = (first < start + margin / 2 && start > 0) || last >= end - margin / 2;
  if (!short) return;
  const nextStart = Math.max(0, first - margin);
  useTrafficAsk.setState({ start: nextStart, end: Math.max(nextStart + FIRST_ROWS, last + 1 + margin) });
}

function currentRequest(): TrafficWindowRequest {
  const { filter, follow, selected } = useTrafficView.getState();
  const { start, end } = useTrafficAsk.getState();
  const connectionId = useConnection.getState().id;
  return {
    filter,
    ...(connectionId !== undefined ? { connectionId } : {}),
    start,
    count: end - start,
    // Never while a row is open: it stays where it is.
    follow: follow && selected === null,
    ...(selected !== null ? { opened: selected } : {}),
  };
}

let lastSent = '';
let queued = false;
let open = false;

function send(): void {
  queued = false;
  if (!open) return;
  const request = currentRequest();
  const key = JSON.stringify(request);
  if (key === lastSent) return;
  lastSent = key;
  void getEngine()
    .request({ type: 'trafficWindow', window: request })
    .catch(() => null);
}

/** Many changes in one task (a filter and a scroll) make one request. */
function sendSoon(): void {
  if (queued) return;
  queued = true;
  queueMicrotask(send);
}

/**
 * While the calling component (the drawer's panel) is mounted, the engine sends the drawer's window: the rows
 * in view under its filter, and the opened message. Unmounted, it stops, and the page lets the window go.
 */
export function useTrafficWindow(): void {
  useEffect(() => {
    open = true;
    setWindowWanted(true);
    lastSent = '';
    send();
    const stops = [
      useTrafficView.subscribe(sendSoon),
      useTrafficAsk.subscribe(sendSoon),
      useConnection.subscribe(sendSoon),
    ];
    return () => {
      for (const stop of stops) stop();
      open = false;
      lastSent = '';
      useTrafficAsk.setState({ start: 0, end: FIRST_ROWS });
      setWindowWanted(false);
      void getEngine()
        .request({ type: 'trafficWindow', window: null })
        .catch(() => null);
    };
  }, []);
}
