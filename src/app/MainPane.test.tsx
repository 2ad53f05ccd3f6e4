// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { useConnection } from '../state/connection-store';
import { useSelection } from '../state/selection-store';
import { reactRoot } from '../../test/helpers/react-root';
import { MainPane } from './MainPane';

const view = reactRoot();
const server = { name: 'Taskscope demo receiver', version: '1.0.0', capabilities: {} };
beforeEach(() => {
  useSelection.setState({ selection: { kind: 'none' } });
});

describe('MainPane with nothing selected', () => {
  it('connected: says to whom', () => {
    useConnection.setState({ id: 1, url: '/demo/mcp', headers: {}, status: 'connected', server });
    act(() => view.root.render(<MainPane />));
    expect(view.container.textContent).toContain('Connected to Taskscope demo receiver');
  });

  it('after Disconnect: says disconnected from that receiver, not connected', () => {
    useConnection.setState({ id: 1, url: '/demo/mcp', headers: {}, status: 'closed', server });
    act(() => view.root.render(<MainPane />));
    expect(view.container.textContent).toContain('Disconnected from Taskscope demo receiver');
    expect(view.container.textContent).not.toContain('Connected to');
  });

  it('a receiver without CORS: the pane is about the problem, not "Pick a tool"', () => {
    useConnection.setState({
      id: 1,
      url: 'http://127.0.0.1:9/mcp',
      headers: {},
      status: 'error',
      server: undefined,
      error: { kind: 'cors-or-network', diagnosis: 'cors', message: 'answers, but not for this origin' },
    });
    act(() => view.root.render(<MainPane />));
    expect(view.container.querySelector('[data-testid="connection-problem-pane"]')).not.toBeNull();
    expect(view.container.querySelector('[data-testid="relay-offer"]')).not.toBeNull();
    expect(view.container.textContent).not.toContain('Pick a tool');
  });
});
