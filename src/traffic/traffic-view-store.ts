import { create } from 'zustand';
import { NO_FILTER, type TrafficFilter } from '../engine/traffic-filter';

const HEIGHT_KEY = 'taskscope.trafficHeight';
export const MIN_DRAWER_HEIGHT = 120;
/** Until resized, the drawer opens this tall: room for a message's request and answer side by side. */
export const DEFAULT_DRAWER_HEIGHT = { share: '45vh', min: 320 } as const;

function storedHeight(): number | undefined {
  try {
    const value = Number(globalThis.localStorage?.getItem(HEIGHT_KEY) ?? NaN);
    return Number.isFinite(value) && value >= MIN_DRAWER_HEIGHT ? value : undefined;
  } catch {
    return undefined;
  }
}

interface TrafficViewState {
  open: boolean;
  filter: TrafficFilter;
  /** The row opened in the detail pane, by its n. */
  selected: number | null;
  /** Keep the newest row in view as rows come (never while a row is open). */
  follow: boolean;
  /** In px once resized (remembered); undefined for DEFAULT_DRAWER_HEIGHT. */
  height: number | undefined;
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
