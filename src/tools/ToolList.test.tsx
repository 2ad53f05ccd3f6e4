// @vitest-environment jsdom
import { act } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ToolInfo } from '../mcp';
import { useConnection } from '../state/connection-store';
import { createQueryClient, queryKeys } from '../tracker/queries';
import { ToolList } from './ToolList';
import { matchesTool } from './tool-search';
import { reactRoot } from '../../test/helpers/react-root';

const env = {
  name: 'get-env',
  title: 'Print Environment Tool',
  description: 'Returns all environment variables',
};

describe('matchesTool', () => {
  it('matches every word in the name, title or description, in any case and order', () => {
    expect(matchesTool(env, '')).toBe(true);
    expect(matchesTool(env, 'GET-ENV')).toBe(true);
    expect(matchesTool(env, 'print')).toBe(true);
    expect(matchesTool(env, 'variables  returns')).toBe(true);
    expect(matchesTool(env, 'print sum')).toBe(false);
  });

  it('copes with a tool that has no title or description', () => {
    expect(matchesTool({ name: 'echo' }, 'ech')).toBe(true);
    expect(matchesTool({ name: 'echo' }, 'undefined')).toBe(false);
  });
});

describe('ToolList', () => {
  const view = reactRoot();
  const tools: ToolInfo[] = [
    { name: 'echo', description: 'Echoes back the input', taskSupport: 'forbidden', inputSchema: {} },
    { ...env, taskSupport: 'forbidden', inputSchema: {} },
    {
      name: 'trigger-long-running-operation',
      description: 'Demonstrates a long running operation with progress updates',
      taskSupport: 'optional',
      inputSchema: {},
    },
    {
      name: 'ask_user',
      description: 'Asks you a question (elicitation)',
      taskSupport: 'required',
      inputSchema: {},
    },
  ];

  beforeEach(() => {
    useConnection.setState({ id: 1, status: 'connected' });
    const client = createQueryClient();
    client.setQueryData(queryKeys.tools(1), { tools, warnings: [] });
    act(() =>
      view.root.render(
        <QueryClientProvider client={client}>
          <ToolList />
        </QueryClientProvider>,
      ),
    );
  });

  const search = () => view.container.querySelector<HTMLInputElement>('[data-testid="tool-search"]')!;
  const shown = () =>
    [...view.container.querySelectorAll<HTMLElement>('[data-testid="tool-list"] button')].map(
      (b) => b.dataset.testid,
    );
  function type(value: string) {
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
    act(() => {
      setter.call(search(), value);
      search().dispatchEvent(new Event('input', { bubbles: true }));
    });
  }

  it('filters by name, title and description, says how many of how many, and says when none matches', () => {
    expect(shown()).toHaveLength(4);
    type('echo');
    expect(shown()).toEqual(['tool-echo']);
    expect(view.container.querySelector('[data-testid="tool-search-count"]')?.textContent).toBe(
      '1 of 4 tools',
    );
    type('print environment');
    expect(shown()).toEqual(['tool-get-env']);
    type('PROGRESS updates');
    expect(shown()).toEqual(['tool-trigger-long-running-operation']);
    type('elicitation');
    expect(shown()).toEqual(['tool-ask_user']);
    type('no such tool anywhere');
    expect(view.container.querySelector('[data-testid="tool-list"]')).toBeNull();
    expect(view.container.textContent).toContain('No tool matches “no such tool anywhere”.');
  });

  it('lists the tools that run as tasks first, under a heading and each with a marker, the plain ones after', () => {
    expect(shown()).toEqual([
      'tool-trigger-long-running-operation',
      'tool-ask_user',
      'tool-echo',
      'tool-get-env',
    ]);
    const headings = [...view.container.querySelectorAll('[data-testid="tool-group"]')];
    expect(headings.map((h) => h.textContent)).toEqual(['Run as tasks (2)', 'Plain calls only (2)']);
    const marked = [...view.container.querySelectorAll('[data-testid="task-tool-marker"]')].map(
      (m) => m.closest('button')?.dataset.testid,
    );
    expect(marked).toEqual(['tool-trigger-long-running-operation', 'tool-ask_user']);
    // A search that leaves one group draws no headings.
    type('echo');
    expect(view.container.querySelector('[data-testid="tool-group"]')).toBeNull();
  });

  it('without a working session says why in the connection’s one state: a stdio server that exited', () => {
    act(() => useConnection.setState({ status: 'error', reason: 'server-exited' }));
    expect(view.container.querySelector('[data-testid="tools-unavailable"]')?.textContent).toContain(
      'The server exited: Restart it',
    );
    act(() => useConnection.setState({ status: 'idle', reason: undefined }));
    expect(view.container.querySelector('[data-testid="tools-unavailable"]')?.textContent).toContain(
      'No receiver: connect',
    );
  });

  it('empties the search on Escape before Escape closes anything', () => {
    type('echo');
    const escape = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true });
    act(() => {
      search().dispatchEvent(escape);
    });
    expect(search().value).toBe('');
    expect(escape.defaultPrevented).toBe(true);
    expect(shown()).toHaveLength(4);
  });
});
