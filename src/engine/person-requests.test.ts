import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { InboxEvent } from './messages';
import { PersonRequests } from './person-requests';

const elicit = (i: number) => ({
  id: `elicit-${i}`,
  method: 'elicitation/create',
  params: { message: `Question ${i}` },
});

describe('PersonRequests under a flood of receiver requests', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function flood(count: number) {
    const inbox: InboxEvent[] = [];
    const notes: string[] = [];
    const people = new PersonRequests(1, {
      inbox: (event) => inbox.push(event),
      refused: (note) => notes.push(note),
      note: () => {},
    });
    const settled: string[] = [];
    for (let i = 0; i < count; i++) {
      people.handler(elicit(i), new AbortController().signal).then(
        () => settled.push(`answered ${i}`),
        (error: Error) => settled.push(`refused ${i}: ${error.message}`),
      );
    }
    return { people, inbox, notes, settled };
  }

  it('holds 50 for a person and refuses the rest, counted at once and answered a handful per turn', async () => {
    const { inbox, notes, settled } = flood(80);
    expect(inbox.filter((e) => e.kind === 'asked')).toHaveLength(50);
    expect(notes.at(-1)).toBe('30 elicitation/create requests refused: 50 already wait for a person');
    await Promise.resolve();
    // Decided, not yet answered: the answers are POSTs, which wait for the next turn.
    expect(settled).toEqual([]);

    // Work that reaches the Worker after the flood (the page taking a batch) runs before the last refusals.
    const order: string[] = [];
    setTimeout(() => order.push(`other work after ${settled.length} refusals`), 0);
    await vi.advanceTimersToNextTimerAsync();
    expect(settled).toHaveLength(10);
    await vi.runAllTimersAsync();
    expect(order).toEqual(['other work after 10 refusals']);
    expect(settled).toHaveLength(30);
    expect(settled[0]).toBe('refused 50: Too many requests waiting for a person (50)');
    expect(settled.at(-1)).toMatch(/^refused 79: /);
  });

  it('answers the refusals still queued when the connection closes', async () => {
    const { people, settled } = flood(70);
    people.dropAll();
    await vi.waitFor(() => expect(settled).toHaveLength(70));
    expect(settled.filter((s) => s.endsWith('connection closed'))).toHaveLength(50);
    expect(vi.getTimerCount()).toBe(0);
  });
});
