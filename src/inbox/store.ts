import { create } from 'zustand';

export type InboxState = 'pending' | 'answered' | 'cancelled';

/** A request the receiver sent us (elicitation, sampling), waiting for a person or already answered. */
export interface InboxItem {
  key: string;
  connectionId: number;
  requestId: string | number;
  method: string;
  params: Record<string, unknown>;
  /** The task it belongs to (related-task _meta); none for a request during a plain tools/call. */
  relatedTaskId?: string;
  receivedAt: number;
  state: InboxState;
  /** What was answered, in a few words, once answered or cancelled. */
  outcome?: string;
}

/** Answered items kept for the record; the oldest go first beyond this. */
const KEEP_DONE = 200;

interface InboxStore {
  items: InboxItem[];
  add: (item: InboxItem) => void;
  settle: (key: string, state: Exclude<InboxState, 'pending'>, outcome: string) => void;
}

export const useInbox = create<InboxStore>()((set) => ({
  items: [],
  add: (item) => set((s) => ({ items: [...s.items, item] })),
  settle: (key, state, outcome) =>
    set((s) => {
      const items = s.items.map((i) =>
        i.key === key && i.state === 'pending' ? { ...i, state, outcome } : i,
      );
      const done = items.filter((i) => i.state !== 'pending');
      return {
        items:
          done.length > KEEP_DONE
            ? items.filter((i) => i.state === 'pending' || done.indexOf(i) >= done.length - KEEP_DONE)
            : items,
      };
    }),
}));

export const pendingFor = (items: InboxItem[], taskId: string) =>
  items.filter((i) => i.state === 'pending' && i.relatedTaskId === taskId);
