import { create } from 'zustand';
import type { TrafficEvent } from '../mcp';

/** The drawer shows the most recent messages only; the engine's tap keeps nothing. */
export const TRAFFIC_CAPACITY = 1000;

interface TrafficState {
  events: TrafficEvent[];
  /** Everything seen since the page loaded (or the last clear), including what the ring has dropped. */
  total: number;
  /** One store update per engine batch; `dropped` counts what the engine could not send in time. */
  pushMany: (events: readonly TrafficEvent[], dropped?: number) => void;
  clear: () => void;
}

export const useTraffic = create<TrafficState>()((set) => ({
  events: [],
  total: 0,
  pushMany: (incoming, dropped = 0) =>
    set((state) => {
      if (incoming.length === 0 && dropped === 0) return state;
      const events = state.events.concat(incoming);
      if (events.length > TRAFFIC_CAPACITY) events.splice(0, events.length - TRAFFIC_CAPACITY);
      return { events, total: state.total + incoming.length + dropped };
    }),
  clear: () => set({ events: [], total: 0 }),
}));
