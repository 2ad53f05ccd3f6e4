// @vitest-environment jsdom
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { reactRoot } from '../../test/helpers/react-root';
import { PASSIVE_OBSERVING, useObserve } from '../state/observe-store';
import { StdioConsole } from './StdioConsole';

const view = reactRoot();
afterEach(() => {
  vi.unstubAllGlobals();
  useObserve.setState({ connectionId: undefined, source: undefined, news: undefined, token: undefined });
});

describe('the console of a stdio server taskscope proxy --stdio runs', () => {
  it("shows the server's stderr from /observed/console under the page's token, and cannot restart it", async () => {
    const fetchMock = vi.fn(async () =>
      Response.json({
        name: 'ev',
        command: 'node server.js',
        state: { phase: 'running', pid: 42, startedAt: 1 },
        nonMcpLines: 0,
        lines: [{ seq: 1, at: 1, stream: 'stderr', text: 'Starting default (STDIO) server...' }],
        dropped: 0,
        lastSeq: 1,
      }),
    );
    vi.stubGlobal('fetch', fetchMock);
    useObserve.setState({
      connectionId: 3,
      source: 'ev',
      token: 'page-token',
      news: { name: 'ev', kind: 'stdio', upstream: 'stdio:ev', sessions: [] },
    });
    await act(async () => view.root.render(<StdioConsole />));
    await vi.waitFor(() =>
      expect(view.container.textContent).toContain('Starting default (STDIO) server...'),
    );
    const [url, init] = fetchMock.mock.calls[0] as unknown as [URL, RequestInit];
    expect(`${url.pathname}${url.search}`).toBe('/observed/console?source=ev&after=0');
    expect(init.headers).toEqual({ 'X-Taskscope-Relay-Token': 'page-token' });
    const restart = view.container.querySelector<HTMLButtonElement>('[data-testid="stdio-restart"]');
    expect(restart?.disabled).toBe(true);
    expect(restart?.title).toBe(PASSIVE_OBSERVING);
    expect(view.container.querySelector('[data-testid="stdio-state"]')?.textContent).toContain('pid 42');
  });

  it('shows nothing for an observed HTTP source', async () => {
    useObserve.setState({
      connectionId: 3,
      source: 'demo',
      token: 'page-token',
      news: { name: 'demo', kind: 'http', upstream: 'http://127.0.0.1:3001/mcp', sessions: [] },
    });
    await act(async () => view.root.render(<StdioConsole />));
    expect(view.container.querySelector('[data-testid="stdio-console"]')).toBeNull();
  });
});
