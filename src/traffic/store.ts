import { create } from 'zustand';
import type { TrafficEvent } from '../mcp';

/** The drawer shows the most recent messages only; the tap itself keeps nothing. */
export const TRAFFIC_CAPACITY = 1000;

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
  push: (event) =>
    set((state) => {
      const events =
        state.events.length >= TRAFFIC_CAPACITY
          ? state.events.slice(-TRAFFIC_CAPACITY + 1)
          : state.events.slice();
      events.push(event);
      return { events, total: state.total + 1 };
    }),
  clear: () => set({ events: [] }),
}));
