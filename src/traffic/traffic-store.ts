import { create } from 'zustand';
import type { TrafficEvent } from '../mcp';
import { NO_FILTER, type TrafficFilter } from './filters';
import { TRAFFIC_BYTE_CAP, TRAFFIC_COUNT_CAP, addEvents, emptyLog, type TrafficLogState } from './rows';

export { TRAFFIC_BYTE_CAP, TRAFFIC_COUNT_CAP };

interface TrafficState extends TrafficLogState {
  /** One store update per engine batch; `dropped` counts what the engine could not send in time. */
  pushMany: (events: readonly TrafficEvent[], dropped?: number) => void;
  /** Empties the log and resets every count. */
  clear: () => void;
}

/** The page's traffic log: a ring of rows (request and answer paired), bounded by bytes and by count. */
export const useTraffic = create<TrafficState>()((set) => ({
  ...emptyLog(),
  pushMany: (incoming, dropped = 0) => set((state) => addEvents(state, incoming, dropped)),
  clear: () => set(emptyLog()),
}));

/** The events the log keeps of one connection (or replay), oldest first: what its exports and checks read. */
export function trafficEventsOf(connectionId: number): TrafficEvent[] {
  return trafficEvents().filter((event) => event.connectionId === connectionId);
}

/** Every event the log keeps, in the order they happened. */
export function trafficEvents(): TrafficEvent[] {
  const events: TrafficEvent[] = [];
  for (const row of useTraffic.getState().rows) {
    events.push(row.first);
    if (row.answer) events.push(row.answer);
  }
  return events.sort((a, b) => a.seq - b.seq);
}

const HEIGHT_KEY = 'taskscope.trafficHeight';
export const MIN_DRAWER_HEIGHT = 120;
export const DEFAULT_DRAWER_HEIGHT = 260;

function storedHeight(): number {
  try {
    const value = Number(globalThis.localStorage?.getItem(HEIGHT_KEY));
    return Number.isFinite(value) && value >= MIN_DRAWER_HEIGHT ? value : DEFAULT_DRAWER_HEIGHT;
  } catch {
    return DEFAULT_DRAWER_HEIGHT;
  }
}

interface TrafficViewState {
  open: boolean;
  filter: TrafficFilter;
  /** The row opened in the detail pane, by its n. */
  selected: number | null;
  /** Keep the newest row in view as rows come (never while a row is open). */
  follow: boolean;
  height: number;
  setOpen: (open: boolean | ((open: boolean) => boolean)) => void;
  setFilter: (change: Partial<TrafficFilter>) => void;
  select: (n: number | null) => void;
  setFollow: (follow: boolean) => void;
  setHeight: (height: number) => void;
}

/** What the drawer shows and how: open, filtered, which row is open. Views outside the drawer open it here. */
export const useTrafficView = create<TrafficViewState>()((set) => ({
  open: false,
  filter: NO_FILTER,
  selected: null,
  follow: true,
  height: storedHeight(),
  setOpen: (open) => set((s) => ({ open: typeof open === 'function' ? open(s.open) : open })),
  setFilter: (change) => set((s) => ({ filter: { ...s.filter, ...change } })),
  select: (selected) => set({ selected }),
  setFollow: (follow) => set({ follow }),
  setHeight: (height) => {
    // No taller than the window leaves room for: a stored height past it would make the handle feel dead.
    const most = typeof window === 'undefined' ? Infinity : window.innerHeight - 256;
    const rounded = Math.round(Math.max(MIN_DRAWER_HEIGHT, Math.min(most, height)));
    set({ height: rounded });
    try {
      globalThis.localStorage?.setItem(HEIGHT_KEY, String(rounded));
    } catch {
      // Private mode or a full store: the height lasts for this page only.
    }
  },
}));

/** Opens the drawer on one task's messages (the task detail's Traffic button). */
export function showTaskTraffic(taskId: string): void {
  useTrafficView.setState({
    open: true,
    filter: { ...NO_FILTER, taskId, taskExact: true },
    selected: null,
    follow: true,
  });
}
