import { create } from 'zustand';
import type { TrafficEvent } from '../mcp';

/** The drawer shows the most recent messages only; the tap itself keeps nothing. */
export const TRAFFIC_CAPACITY = 1000;
/** Messages larger than this are logged without their body: a thousand 3 MB results would fill the tab. */
export const MAX_KEPT_MESSAGE_BYTES = 64 * 1024;

interface TrafficState {
  events: TrafficEvent[];
  /** Everything seen since the page loaded, including what the ring has dropped. */
  total: number;
  push: (event: TrafficEvent) => void;
  clear: () => void;
}

export const useTraffic = create<TrafficState>()((set) => ({
  events: [],
  total: 0,
  push: (raw) =>
    set((state) => {
      const event =
        raw.bytes > MAX_KEPT_MESSAGE_BYTES
          ? { ...raw, message: { omitted: `${raw.bytes} bytes, too large to keep in the log` } }
          : raw;
      const events =
        state.events.length >= TRAFFIC_CAPACITY
          ? state.events.slice(-TRAFFIC_CAPACITY + 1)
          : state.events.slice();
      events.push(event);
      return { events, total: state.total + 1 };
    }),
  clear: () => set({ events: [] }),
}));
