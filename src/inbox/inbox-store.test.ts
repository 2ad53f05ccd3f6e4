import { beforeEach, describe, expect, it } from 'vitest';
import type { InboxRequest } from '../engine/messages';
import { pendingFor, useInbox } from './inbox-store';

const request = (n: number, relatedTaskId?: string): InboxRequest => ({
  key: `1:${n}`,
  connectionId: 1,
  requestId: n,
  method: 'elicitation/create',
  params: {},
  relatedTaskId,
  receivedAt: n,
});

beforeEach(() => useInbox.setState({ items: [] }));

describe('the inbox store', () => {
  it('adds what the receiver asked and settles it once, in one update per batch', () => {
    let updates = 0;
    const stop = useInbox.subscribe(() => updates++);
    useInbox.getState().apply([
      { kind: 'asked', request: request(1, 't1') },
      { kind: 'asked', request: request(2) },
      { kind: 'settled', key: '1:1', state: 'answered', outcome: 'accept' },
      { kind: 'settled', key: '1:1', state: 'cancelled', outcome: 'too late' },
    ]);
    stop();
    expect(updates).toBe(1);
    const [first, second] = useInbox.getState().items;
    expect(first).toMatchObject({ key: '1:1', state: 'answered', outcome: 'accept' });
    expect(second).toMatchObject({ key: '1:2', state: 'pending' });
    expect(pendingFor(useInbox.getState().items, 't1')).toEqual([]);
  });

  it('keeps every pending item but only the latest 200 answered ones', () => {
    const events = Array.from({ length: 250 }, (_, i) => [
      { kind: 'asked' as const, request: request(i) },
      { kind: 'settled' as const, key: `1:${i}`, state: 'answered' as const, outcome: 'ok' },
    ]).flat();
    useInbox.getState().apply([...events, { kind: 'asked', request: request(999, 't9') }]);
    const items = useInbox.getState().items;
    expect(items.filter((i) => i.state === 'answered')).toHaveLength(200);
    expect(items[0]?.key).toBe('1:50');
    expect(pendingFor(items, 't9')).toHaveLength(1);
  });
});

describe('what was sent', () => {
  it('is kept on the item through its settling, for the answered list to show', () => {
    useInbox.getState().apply([{ kind: 'asked', request: request(1, 't1') }]);
    useInbox.getState().noteSent('1:1', {
      kind: 'elicitation',
      action: 'accept',
      content: { answer: 'teal' },
      at: 5,
    });
    useInbox.getState().apply([{ kind: 'settled', key: '1:1', state: 'answered', outcome: 'accept' }]);
    expect(useInbox.getState().items[0]).toMatchObject({
      state: 'answered',
      outcome: 'accept',
      sent: { kind: 'elicitation', content: { answer: 'teal' } },
    });
  });

  it('touches no other item, and nothing when the key is unknown', () => {
    useInbox.getState().apply([
      { kind: 'asked', request: request(1) },
      { kind: 'asked', request: request(2) },
    ]);
    useInbox.getState().noteSent('1:2', { kind: 'sampling', text: 'hi', model: 'm', at: 1 });
    useInbox.getState().noteSent('9:9', { kind: 'sampling-declined', at: 1 });
    const [first, second] = useInbox.getState().items;
    expect(first?.sent).toBeUndefined();
    expect(second?.sent).toEqual({ kind: 'sampling', text: 'hi', model: 'm', at: 1 });
  });
});

describe('an answer restored from history', () => {
  it('shows the values sent, read from the engine record of the reply', () => {
    useInbox.setState({ items: [] });
    useInbox.getState().apply([
      {
        kind: 'asked',
        request: {
          key: 'h:1',
          connectionId: 1,
          requestId: 1,
          method: 'elicitation/create',
          params: {},
          receivedAt: 1,
        },
      },
      {
        kind: 'settled',
        key: 'h:1',
        state: 'answered',
        outcome: 'accept',
        at: 5,
        reply: { result: { action: 'accept', content: { answer: 'teal' } } },
      },
    ]);
    expect(useInbox.getState().items[0]?.sent).toEqual({
      kind: 'elicitation',
      action: 'accept',
      content: { answer: 'teal' },
      at: 5,
    });
  });
});
