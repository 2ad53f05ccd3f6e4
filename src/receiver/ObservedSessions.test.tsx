// @vitest-environment jsdom
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reactRoot } from '../../test/helpers/react-root';
import type { Command, ObservedNews } from '../engine/messages';
import { useConnection } from '../state/connection-store';
import { useObserve } from '../state/observe-store';
import { ObservedSessions } from './ObservedSessions';

/**
 * The picker of an observed source's client sessions, from the engine's news, and the command a pick sends.
 * What the engine makes of the stream is test/integration/observed-engine.test.ts.
 */
const sent = vi.hoisted(() => [] as Command[]);
vi.mock('../bridge/engine-bridge', () => ({
  getEngine: () => ({
    request: (command: Command) => {
      sent.push(command);
      return Promise.resolve({ ok: true, source: { name: 'demo', kind: 'http', upstream: 'http://up/mcp' } });
    },
  }),
}));

const NEWS: ObservedNews = {
  name: 'demo',
  kind: 'http',
  upstream: 'http://127.0.0.1:3001/mcp',
  sessions: [
    { key: 'session:b', label: 'newer 1', era: '2025-11-25', tasks: 2, lastAt: Date.UTC(2026, 0, 1, 9, 30) },
    { key: 'client:older@1', label: 'older 1', era: '2026-07-28', tasks: 1, lastAt: Date.UTC(2026, 0, 1, 9) },
  ],
  selected: 'session:b',
};

const view = reactRoot();
beforeEach(() => {
  sent.length = 0;
  useConnection.setState({ id: 3, url: '', headers: {}, status: 'connected', server: undefined });
  useObserve.setState({ connectionId: 3, source: 'demo', news: NEWS });
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response(JSON.stringify({ token: 'page-token' }), { status: 200 })),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
  act(() => useObserve.setState({ connectionId: undefined, source: undefined, news: undefined }));
});

const $ = (testId: string) => view.container.querySelector<HTMLElement>(`[data-testid="${testId}"]`);
const rows = () => [
  ...view.container.querySelectorAll<HTMLButtonElement>('[data-testid="observed-session"]'),
];

describe('ObservedSessions', () => {
  it('lists the client sessions, newest first, with protocol, tasks and last activity; the one shown marked', () => {
    act(() => view.root.render(<ObservedSessions />));
    expect(rows().map((r) => r.textContent)).toEqual([
      expect.stringMatching(/^newer 1.*2025-11-25 · 2 tasks · \d\d:\d\d:\d\d$/),
      expect.stringMatching(/^older 1.*2026-07-28 · 1 task · \d\d:\d\d:\d\d$/),
    ]);
    expect(rows().map((r) => r.getAttribute('aria-current'))).toEqual(['true', null]);
    expect($('observed-sessions')?.textContent).toMatch(/http:\/\/127\.0\.0\.1:3001\/mcp/);
    expect($('observed-sessions')?.textContent).toMatch(/sends nothing in the client's session/);
    expect($('observed-note')).toBeNull();
  });

  it('a pick shows that session: the engine is asked for it under a new connection, with the page token', async () => {
    act(() => view.root.render(<ObservedSessions />));
    const observes = () => sent.filter((c) => c.type === 'observe');
    await act(async () => {
      rows()[1]?.click();
      await vi.waitFor(() => expect(observes()).toHaveLength(1));
    });
    expect(observes()[0]).toEqual({
      type: 'observe',
      connectionId: 4,
      source: 'demo',
      session: 'client:older@1',
      server: { url: window.location.origin, token: 'page-token' },
    });
    expect(useConnection.getState()).toMatchObject({ id: 4, url: 'http://up/mcp', status: 'connecting' });
    // The session shown is not asked for again.
    await act(async () => rows()[0]?.click());
    expect(observes()).toHaveLength(1);
  });

  it("the proxy's note (a 401 passed) with the --header way; no session yet said so", () => {
    useObserve.setState({
      news: {
        ...NEWS,
        sessions: [],
        selected: undefined,
        note: 'The upstream answered 401 with WWW-Authenticate: Bearer: the client must sign in.',
      },
    });
    act(() => view.root.render(<ObservedSessions />));
    expect($('observed-note')?.textContent).toContain("--header 'Authorization: Bearer …'");
    expect($('observed-empty')?.textContent).toMatch(/No client session yet/);
  });

  it('is not there unless the page observes', () => {
    useObserve.setState({ connectionId: undefined, source: undefined, news: undefined });
    act(() => view.root.render(<ObservedSessions />));
    expect($('observed-sessions')).toBeNull();
  });
});
