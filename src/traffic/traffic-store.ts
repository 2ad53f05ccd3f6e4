import { create } from 'zustand';
import { useEffect } from 'react';
import type { TrafficEvent } from '../mcp';
import type { Batch } from '../engine/messages';
import type { TrafficLine, TrafficWindow } from '../engine/traffic-window';
import { getEngine } from '../bridge/engine-bridge';
import {
  TRAFFIC_BYTE_CAP,
  TRAFFIC_COUNT_CAP,
  addEvents,
  emptyLog,
  eventsOf,
  type TrafficCounts,
  type TrafficLogState,
  type TrafficRow,
} from '../engine/traffic-rows';

export { TRAFFIC_BYTE_CAP, TRAFFIC_COUNT_CAP };

/** What the open drawer shows, as the engine last sent it (traffic-window.ts); methods and opened kept until they change. */
export interface DrawerWindow extends Omit<TrafficWindow, 'methods' | 'opened'> {
  methods: string[];
  opened: TrafficRow | null;
}

interface TrafficState extends TrafficLogState {
  /** Rows the engine's log holds (the page's own rows are empty but while the report card mirrors the log). */
  rowsKept: number;
  /** The page's rows are the engine's log (false from asking for them until they arrive). */
  synced: boolean;
  /** The drawer's window while it is open (undefined until the first comes, and once it closed). */
  window: DrawerWindow | undefined;
  /** One store update per engine batch; `dropped` counts what the engine could not send in time. */
  pushMany: (events: readonly TrafficEvent[], dropped?: number) => void;
  /** Empties the log and resets every count. */
  clear: () => void;
}

/**
 * What the page holds of the traffic log, which the engine keeps: its counts always; the open drawer's window
 * (the rows in view and the opened message); and a copy of its rows (a ring, request and answer paired,
 * bounded by bytes and by count) only while the report card judges them (useTrafficMirror).
 */
export const useTraffic = create<TrafficState>()((set) => ({
  ...emptyLog(),
  rowsKept: 0,
  synced: true,
  window: undefined,
  pushMany: (incoming, dropped = 0) =>
    set((state) => {
      const next = addEvents(state, incoming, dropped);
      return { ...next, rowsKept: next.rows.length };
    }),
  clear: () => set({ ...emptyLog(), rowsKept: 0, synced: true, window: undefined }),
}));

/** The events the page's copy keeps of one connection (or replay), oldest first: what the report card reads. */
export function trafficEventsOf(connectionId: number): TrafficEvent[] {
  return eventsOf(useTraffic.getState().rows, connectionId);
}

/** Every event the page's copy keeps, in the order they happened. */
export function trafficEvents(): TrafficEvent[] {
  return eventsOf(useTraffic.getState().rows);
}

/** The page's clears of the log, numbered: a batch the engine sent before the latest one brings no traffic. */
let epoch = 0;
/** How many views on the page show the log's rows now. */
let mirrors = 0;

/** Empties the log, the page's copy and the engine's. */
export function clearTrafficLog(): void {
  epoch += 1;
  useTraffic.getState().clear();
  void getEngine().request({ type: 'trafficClear', epoch });
}

/** The whole log of one connection from the engine, for an export. */
export function fetchTrafficEvents(connectionId: number): Promise<TrafficEvent[]> {
  return getEngine().request({ type: 'trafficEvents', connectionId });
}

/** A batch's traffic part into the page's copy: the drawer's window while open, rows while mirrored, counts always. */
export function applyTrafficBatch(
  batch: Pick<
    Batch,
    'traffic' | 'trafficDropped' | 'trafficSync' | 'trafficCount' | 'trafficEpoch' | 'trafficWindow'
  >,
): void {
  if (batch.trafficEpoch !== epoch) return;
  // A window sent before the drawer closed is not kept: it would hold rows and bodies while closed, and
  // draw stale rows when it opens again.
  if (batch.trafficWindow && windowWanted) applyWindow(batch.trafficWindow);
  const counts: Partial<TrafficCounts> = batch.trafficCount ?? {};
  const withCounts = (state: TrafficLogState & { rowsKept: number }) => ({
    ...state,
    total: counts.total ?? state.total,
    kept: counts.kept ?? state.kept,
    rowsKept: counts.rows ?? state.rowsKept,
  });
  const state = useTraffic.getState();
  if (mirrors > 0 && batch.trafficSync) {
    useTraffic.setState({
      ...withCounts({ ...addEvents(emptyLog(), batch.traffic), rowsKept: 0 }),
      synced: true,
    });
    return;
  }
  const grows = mirrors > 0 && state.synced && (batch.traffic.length > 0 || batch.trafficDropped > 0);
  if (!grows && !batch.trafficCount) return;
  const next = grows ? addEvents(state, batch.traffic, batch.trafficDropped) : state;
  useTraffic.setState(withCounts({ ...next, rowsKept: state.rowsKept }));
}

const sameLine = (a: TrafficLine, b: TrafficLine) => {
  const keys = Object.keys(a) as (keyof TrafficLine)[];
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
};

/** The drawer's panel is mounted and asks for its window (traffic-window-request.ts). */
let windowWanted = false;

export function setWindowWanted(on: boolean): void {
  windowWanted = on;
  if (!on) useTraffic.setState({ window: undefined });
}

function applyWindow({ methods, opened, lines, ...window }: TrafficWindow): void {
  const before = useTraffic.getState().window;
  // A line as it was keeps its object: its row is not drawn again (the rows are memoised on it).
  const kept = new Map(before?.lines.map((line) => [line.n, line]));
  useTraffic.setState({
    window: {
      ...window,
      lines: lines.map((line) => {
        const old = kept.get(line.n);
        return old && sameLine(old, line) ? old : line;
      }),
      methods: methods ?? before?.methods ?? [],
      opened: opened === undefined ? (before?.opened ?? null) : opened,
    },
  });
}

function setMirror(on: boolean): void {
  if (on) useTraffic.setState({ synced: false });
  // Closed, the page keeps the counts only.
  else useTraffic.setState({ rows: [], bytes: 0, awaited: new Map(), synced: true });
  void getEngine().request({ type: 'trafficMirror', on });
}

/**
 * While the calling component is mounted, the page holds the log's rows: only the report card does, as it
 * judges every message (the drawer asks for its window instead, traffic-window-request.ts).
 */
export function useTrafficMirror(): void {
  useEffect(() => {
    mirrors += 1;
    if (mirrors === 1) setMirror(true);
    return () => {
      mirrors -= 1;
      if (mirrors === 0) setMirror(false);
    };
  }, []);
}
