// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useConnection } from '../state/connection-store';
import { useObserve } from '../state/observe-store';
import { useReplay } from '../state/replay-store';
import { useSelection } from '../state/selection-store';
import { addressFor, syncAddress } from './sync-address';

afterEach(() => {
  useObserve.setState({ connectionId: undefined, source: undefined, news: undefined });
  useSelection.setState({ selection: { kind: 'none' } });
});

describe('addressFor', () => {
  it('names an observed source with ?observe= in place of the receiver or trace, the task open kept', () => {
    useReplay.setState({ connectionId: undefined, opening: false });
    useConnection.setState({ id: 2, url: '', status: 'connected' });
    useObserve.setState({ connectionId: 2, source: 'demo' });
    useSelection.setState({ selection: { kind: 'task', taskId: 't-1' } });
    const address = new URL(addressFor('http://127.0.0.1:5173/?server=/other/mcp&trace=/x.json&speed=4')!);
    expect(Object.fromEntries(address.searchParams)).toEqual({ observe: 'demo', task: 't-1' });
  });

  it('drops ?observe= once the page connects to a receiver', () => {
    useReplay.setState({ connectionId: undefined, opening: false });
    useConnection.setState({ id: 3, url: 'http://127.0.0.1:3001/mcp', status: 'connecting' });
    const address = new URL(addressFor('http://127.0.0.1:5173/?observe=demo')!);
    expect(Object.fromEntries(address.searchParams)).toEqual({ server: 'http://127.0.0.1:3001/mcp' });
  });
});

describe('syncAddress', () => {
  it('writes the task opened in a task of its own, after the click that opened it has drawn', async () => {
    useReplay.setState({ connectionId: undefined, opening: false });
    useConnection.setState({ id: 4, url: 'http://127.0.0.1:3001/mcp', status: 'connected' });
    const stop = syncAddress();
    try {
      useSelection.getState().select({ kind: 'task', taskId: 't-2' });
      // Everything the click's own task runs (React's render is a microtask) is done: no history entry yet.
      await Promise.resolve();
      await Promise.resolve();
      expect(new URL(window.location.href).searchParams.get('task')).toBeNull();
      await vi.waitFor(() => expect(new URL(window.location.href).searchParams.get('task')).toBe('t-2'));
    } finally {
      stop();
      window.history.replaceState(null, '', '/');
    }
  });
});
