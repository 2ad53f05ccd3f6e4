// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { useConnection } from '../state/connection-store';
import { reactRoot } from '../../test/helpers/react-root';
import { ConnectionBar } from './ConnectionBar';

/**
 * The header's connection state drawn from the engine's connection news (test/integration/hostile-engine.test.ts
 * holds that a poll past its deadline brings `degraded`; recovery.test.ts the states of a failing connection).
 */
const view = reactRoot();
beforeEach(() => {
  useConnection.setState({ id: 1, url: 'http://127.0.0.1:1/mcp', headers: {}, status: 'idle' }, true);
});
const status = () => view.container.querySelector('[data-testid="connection-status"]')!;

describe('ConnectionBar', () => {
  it('a connected receiver whose requests keep failing reads "Degraded", with the last error beside it', () => {
    const message =
      'Receiver not answering: no answer to tasks/get within 5 s; the request was dropped and its connection freed.';
    useConnection.setState({
      status: 'connected',
      degraded: { failures: 3, since: Date.now(), error: { kind: 'timeout', message } },
    });
    act(() => view.root.render(<ConnectionBar />));
    expect(status().getAttribute('data-status')).toBe('degraded');
    expect(status().textContent).toMatch(/^Degraded/);
    expect(status().querySelector('[data-testid="connection-problem"]')?.textContent).toBe(message);
  });

  it('a connection that cannot work reads "Connection failed"', () => {
    useConnection.setState({
      status: 'error',
      error: { kind: 'cors-or-network', diagnosis: 'cors', message: 'not allowed by CORS' },
    });
    act(() => view.root.render(<ConnectionBar />));
    expect(status().textContent).toBe('Connection failed');
  });
});
