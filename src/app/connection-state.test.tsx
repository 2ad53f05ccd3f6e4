// @vitest-environment jsdom
import { act } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { beforeEach, describe, expect, it } from 'vitest';
import { createQueryClient } from '../tracker/queries';
import { useConnection, type ConnectionState } from '../state/connection-store';
import { useReplay } from '../state/replay-store';
import { useObserve } from '../state/observe-store';
import { useSelection } from '../state/selection-store';
import { useStdio } from '../receiver/stdio-store';
import { connectionView } from '../state/connection-view';
import { ConnectionBar } from '../receiver/ConnectionBar';
import { ReceiverSection } from '../receiver/ReceiverSection';
import { reactRoot } from '../../test/helpers/react-root';
import { MainPane } from './MainPane';

/**
 * The header, the receiver card and the main pane read one derived state (state/connection-view.ts):
 * whatever the engine said last, the three say the same. test/integration/connection-state.test.ts holds that
 * the engine says it (a stdio exit, a sign-out, a 401, a refusal in the receiver's words).
 */
const view = reactRoot();
const server = {
  name: 'mcp-servers/everything',
  title: 'Everything Reference Server',
  version: '2.0.0',
  capabilities: {},
};
const EXITED =
  'The stdio server was ended by SIGKILL: Starting default (STDIO) server... Restart it from its console.';

beforeEach(() => {
  useSelection.setState({ selection: { kind: 'none' } });
  useReplay.setState({ connectionId: undefined });
  useObserve.setState({ connectionId: undefined, source: undefined, news: undefined });
  useStdio.setState({ current: undefined });
  useConnection.setState({ id: 1, url: 'http://127.0.0.1:4000/mcp', headers: {}, status: 'idle' }, true);
});

function renderAll() {
  act(() =>
    view.root.render(
      <QueryClientProvider client={createQueryClient()}>
        <ConnectionBar />
        <ReceiverSection />
        <MainPane />
      </QueryClientProvider>,
    ),
  );
}
const $ = (id: string) => view.container.querySelector(`[data-testid="${id}"]`);
const text = () => view.container.textContent ?? '';

describe('connectionView: one state from what the engine said', () => {
  const base = { status: 'error' } as const;
  it.each<[string, Partial<ConnectionState>, string]>([
    ['connected', { status: 'connected' }, 'connected'],
    [
      'a failing connected session',
      { status: 'connected', degraded: { failures: 3, since: 0, error: { kind: 'timeout', message: 'x' } } },
      'degraded',
    ],
    ['a lost session', { status: 'session-lost' }, 'reconnecting'],
    [
      'the stdio process ended',
      { ...base, reason: 'server-exited', error: { kind: 'other', message: EXITED } },
      'server-exited',
    ],
    [
      'signed out',
      { ...base, reason: 'sign-in-needed', error: { kind: 'auth', message: 'Signed out' } },
      'sign-in-needed',
    ],
    [
      'a 401 from a receiver whose sign-in is ready',
      {
        ...base,
        error: { kind: 'auth', httpStatus: 401, message: '401' },
        auth: { status: 'sign-in-needed', origins: [], steps: [] },
      },
      'sign-in-needed',
    ],
    [
      'nothing answers',
      { ...base, error: { kind: 'cors-or-network', diagnosis: 'unreachable', message: 'x' } },
      'unreachable',
    ],
    [
      'a refusal',
      { ...base, error: { kind: 'other', httpStatus: 400, message: 'Unknown faults: bogus' } },
      'refused',
    ],
  ])('%s: its kind', (_, state, kind) => {
    expect(connectionView({ status: 'idle', ...state }, false).kind).toBe(kind);
  });

  it('a replay is a replay, whatever the live connection was', () => {
    expect(connectionView({ status: 'connected' }, true).kind).toBe('replay');
  });

  it('an observed session names its client and server; its stream cut reads as a connection that is', () => {
    expect(connectionView({ status: 'connected' }, false, 'claude 1 ↔ demo')).toMatchObject({
      kind: 'observing',
      label: 'Observing claude 1 ↔ demo',
      problem: false,
    });
    expect(connectionView({ status: 'unreachable' }, false, 'claude 1 ↔ demo').kind).toBe('unreachable');
  });
});

describe('the header, the receiver card and the main pane agree', () => {
  it('a stdio server that exited: "Server exited" in all three, the bridge’s sentence whole, Restart, no "Connected"', () => {
    useStdio.setState({
      current: {
        url: 'http://localhost/stdio/everything/mcp',
        name: 'everything',
        route: { token: 't', connection: 'c' },
      },
    });
    useConnection.setState({
      status: 'error',
      reason: 'server-exited',
      server,
      error: { kind: 'other', httpStatus: 410, message: EXITED },
    });
    renderAll();
    expect($('connection-status')?.textContent).toBe('Server exited');
    expect($('connection-status')?.getAttribute('data-status')).toBe('server-exited');
    expect($('receiver-state')?.textContent).toBe('· Server exited');
    expect($('connection-problem-pane')?.textContent).toContain('The stdio server has exited');
    expect($('connection-error')?.textContent).toBe(EXITED);
    expect($('problem-restart')).not.toBeNull();
    expect($('problem-retry-now')).toBeNull();
    expect(text()).not.toMatch(/\bConnected\b/);
  });

  it('signed out of an OAuth receiver: "Sign-in needed", a Sign in button in the main pane, never "add a header"', () => {
    useConnection.setState({
      status: 'error',
      reason: 'sign-in-needed',
      server,
      auth: { status: 'none', origins: [], steps: [] },
      error: { kind: 'auth', message: 'Signed out: sign in again to go on with this receiver.' },
    });
    renderAll();
    expect($('connection-status')?.textContent).toBe('Sign-in needed');
    expect($('receiver-state')?.textContent).toBe('· Sign-in needed');
    expect($('problem-sign-in')).not.toBeNull();
    expect(text()).not.toMatch(/\bConnected\b|Authorization header|check the URL/i);
  });

  it('a protected receiver on connect opens on Sign in, not on "Could not connect — check the URL"', () => {
    useConnection.setState({
      status: 'error',
      reason: 'sign-in-needed',
      auth: {
        status: 'sign-in-needed',
        authorizationUrl: 'http://127.0.0.1:4000/auth',
        state: 's',
        origins: [],
        steps: [],
      },
      error: {
        kind: 'auth',
        httpStatus: 401,
        message: 'The receiver asks you to sign in (HTTP 401 with a Bearer challenge): use Sign in.',
      },
    });
    renderAll();
    expect($('connection-problem-pane')?.textContent).toContain('Sign in to use this receiver');
    expect($('problem-sign-in')?.textContent).toContain('Sign in');
    expect(text()).not.toMatch(/Could not connect|Check the URL/);
  });

  it('a refusal in the receiver’s own words: said whole, with no advice to check the URL', () => {
    const message = `The receiver answered HTTP 400: Unknown faults: bogus${' (and more words)'.repeat(30)}`;
    useConnection.setState({
      status: 'error',
      error: { kind: 'other', httpStatus: 400, code: -32600, message, detail: '{"jsonrpc":"2.0","error":{…' },
    });
    renderAll();
    expect($('connection-status')?.textContent).toBe('Connection failed');
    expect($('connection-error')?.textContent).toBe(message);
    expect($('connection-next-step')?.textContent).not.toMatch(/Check the URL/);
  });

  it('observing a client through the proxy: "Observing <client> ↔ <server>" in all three, and that nothing is sent', () => {
    useObserve.setState({
      connectionId: 1,
      source: 'demo',
      news: {
        name: 'demo',
        kind: 'http',
        upstream: 'http://127.0.0.1:3001/mcp',
        sessions: [{ key: 'session:a', label: 'claude-code 2.1', tasks: 1, lastAt: 0, serverName: 'Demo' }],
        selected: 'session:a',
      },
    });
    useConnection.setState({
      url: '',
      status: 'connected',
      server: { ...server, protocolVersion: '2025-11-25' },
    });
    renderAll();
    const pair = 'Observing claude-code 2.1 ↔ Demo';
    expect($('connection-status')?.textContent).toBe(pair);
    expect($('connection-status')?.getAttribute('data-status')).toBe('observing');
    expect($('observed-title')?.textContent).toBe(pair);
    expect(text()).toContain(
      `${pair}Taskscope only watches this client's session through its proxy: it sends nothing`,
    );
    expect($('disconnect')).toBeNull();
    expect(text()).not.toMatch(/\bConnected\b/);
  });
});
