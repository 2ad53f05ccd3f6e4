import { create } from 'zustand';
import type { InboxEvent, InboxRequest } from '../engine/messages';

export type InboxState = 'pending' | 'answered' | 'cancelled';

/** What this page sent back for a request: the accepted content, or the sampling reply. */
export type SentAnswer =
  | {
      kind: 'elicitation';
      action: 'accept' | 'decline' | 'cancel';
      content?: Record<string, unknown>;
      at: number;
    }
  | { kind: 'sampling'; text: string; model: string; at: number }
  | { kind: 'sampling-declined'; at: number };

/** A request the receiver sent us (elicitation, sampling), waiting for a person or already answered. */
export interface InboxItem extends InboxRequest {
  state: InboxState;
  /** What was answered, in a few words, once answered or cancelled. */
  outcome?: string;
  /**
   * The answer as sent: noted on the page when the person answers, and read from the engine's record of the
   * reply for an item restored from history.
   */
  sent?: SentAnswer;
}

/** What the engine's record of an answer says was sent: the same as noteSent, for items restored from history. */
function sentFromReply(
  reply: Extract<InboxEvent, { kind: 'settled' }>['reply'],
  at: number,
): SentAnswer | undefined {
  if (!reply) return undefined;
  if ('error' in reply) return { kind: 'sampling-declined', at };
  const result = reply.result;
  const action = result.action;
  if (action === 'accept' || action === 'decline' || action === 'cancel') {
    const content = result.content;
    return {
      kind: 'elicitation',
      action,
      content:
        typeof content === 'object' && content !== null ? (content as Record<string, unknown>) : undefined,
      at,
    };
  }
  if (typeof result.model === 'string') {
    const content = result.content as { text?: unknown } | undefined;
    return {
      kind: 'sampling',
      text: typeof content?.text === 'string' ? content.text : '',
      model: result.model,
      at,
    };
  }
  return undefined;
}

/** Answered items kept for the record; the oldest go first beyond this. */
const KEEP_DONE = 200;

interface InboxStore {
  items: InboxItem[];
  /** Set when the engine refused receiver requests because too many already wait for a person. */
  refused?: string;
  /** One store update for a batch of the engine's inbox events. */
  apply: (events: readonly InboxEvent[]) => void;
  /** Notes what was sent for `key`, whether or not the engine has said it settled yet. */
  noteSent: (key: string, sent: SentAnswer) => void;
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
              ? {
                  ...i,
                  state: event.state,
                  outcome: event.outcome,
                  sent: i.sent ?? sentFromReply(event.reply, event.at ?? Date.now()),
                }
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
  // Only while it waits: a request the receiver withdrew meanwhile was never answered, whatever was typed.
  noteSent: (key, sent) =>
    set((s) => ({
      items: s.items.map((i) => (i.key === key && i.state === 'pending' ? { ...i, sent } : i)),
    })),
}));

export const pendingFor = (items: InboxItem[], taskId: string) =>
  items.filter((i) => i.state === 'pending' && i.relatedTaskId === taskId);
