import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it } from 'vitest';
import type { InboxEvent, InboxRequest } from '../engine/messages';
import { useInbox } from '../inbox/inbox-store';
import { useConnection } from '../state/connection-store';
import { pageTraceSources } from './export-sources';

const request = (connectionId: number, n: number): InboxRequest => ({
  key: `${connectionId}:${n}`,
  connectionId,
  requestId: n,
  method: 'elicitation/create',
  params: { message: `from connection ${connectionId}` },
  receivedAt: n,
});

afterEach(() => {
  useInbox.setState({ items: [] });
  useConnection.setState({ id: 0 });
});

describe('pageTraceSources', () => {
  it("exports only the current connection's inbox items, answered and pending", () => {
    // The inbox keeps an earlier connection's requests after a reconnect; they belong to another session.
    useInbox.setState({ items: [] });
    useInbox.getState().apply([
      { kind: 'asked', request: request(1, 1) },
      { kind: 'asked', request: request(2, 2) },
      { kind: 'asked', request: request(1, 3) },
      { kind: 'asked', request: request(2, 4) },
      { kind: 'settled', key: '1:1', state: 'answered', outcome: 'accept' },
      { kind: 'settled', key: '2:2', state: 'cancelled', outcome: 'cancelled' },
    ]);
    useConnection.setState({ id: 2 });

    const inbox = pageTraceSources(new QueryClient(), []).inbox;

    const asked = inbox.filter((e): e is Extract<InboxEvent, { kind: 'asked' }> => e.kind === 'asked');
    expect(asked.map((e) => e.request.key)).toEqual(['2:2', '2:4']);
    expect(asked.every((e) => e.request.connectionId === 2)).toBe(true);
    expect(inbox.filter((e) => e.kind === 'settled')).toEqual([
      expect.objectContaining({ key: '2:2', state: 'cancelled' }),
    ]);

    useConnection.setState({ id: 1 });
    const earlier = pageTraceSources(new QueryClient(), []).inbox;
    expect(earlier.map((e) => (e.kind === 'asked' ? e.request.key : `settled ${e.key}`))).toEqual([
      '1:1',
      'settled 1:1',
      '1:3',
    ]);
  });
});
