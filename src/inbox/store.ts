import { create } from 'zustand';
import type { InboxEvent, InboxRequest } from '../engine/messages';

export type InboxState = 'pending' | 'answered' | 'cancelled';

/** A request the receiver sent us (elicitation, sampling), waiting for a person or already answered. */
export interface InboxItem extends InboxRequest {
  state: InboxState;
  /** What was answered, in a few words, once answered or cancelled. */
  outcome?: string;
}

/** Answered items kept for the record; the oldest go first beyond this. */
const KEEP_DONE = 200;

interface InboxStore {
  items: InboxItem[];
  /** Set when the engine refused receiver requests because too many already wait for a person. */
  refused?: string;
  /** One store update for a batch of the engine's inbox events. */
  apply: (events: readonly InboxEvent[]) => void;
}

export const useInbox = create<InboxStore>()((set) => ({
  items: [],
  apply: (events) =>
    set((s) => {
      let items = s.items.slice();
      for (const event of events) {
        if (event.kind === 'asked') items.push({ ...event.request, state: 'pending' });
        else
          items = items.map((i) =>
            i.key === event.key && i.state === 'pending'
              ? { ...i, state: event.state, outcome: event.outcome }
              : i,
          );
      }
      const done = items.filter((i) => i.state !== 'pending');
      if (done.length > KEEP_DONE) {
        const keep = new Set(done.slice(-KEEP_DONE));
        items = items.filter((i) => i.state === 'pending' || keep.has(i));
      }
      return { items };
    }),
}));

export const pendingFor = (items: InboxItem[], taskId: string) =>
  items.filter((i) => i.state === 'pending' && i.relatedTaskId === taskId);
