// @vitest-environment jsdom
import { act } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { beforeEach, describe, expect, it } from 'vitest';
import { createQueryClient } from '../../tracker/queries';
import { useConnection } from '../../state/connection-store';
import { tasksStore } from '../tasks-store';
import { useListAsk } from '../list-ask-store';
import { reactRoot } from '../../../test/helpers/react-root';
import { TaskList } from './TaskList';

const view = reactRoot();
beforeEach(() => {
  useConnection.setState({
    id: 1,
    status: 'connected',
    support: { list: true, cancel: true, toolCall: true },
  });
  useListAsk.setState({ filter: 'all', query: '' });
});

describe('TaskList', () => {
  it('shows the engine’s count under each status filter, and a filter or a search asks the engine for that list', () => {
    // What the engine counted: one task failed and one completed (test/integration/demo-task-outcomes.test.ts).
    tasksStore.setState({
      list: {
        all: false,
        filter: 'all',
        query: '',
        total: 2,
        start: 0,
        ids: [],
        counts: { all: 2, failed: 1, completed: 1 },
      },
    });
    act(() =>
      view.root.render(
        <QueryClientProvider client={createQueryClient()}>
          <TaskList />
        </QueryClientProvider>,
      ),
    );
    const filters = view.container.querySelector('[role="group"][aria-label="Filter by status"]')!;
    const button = (name: string) =>
      [...filters.querySelectorAll('button')].find((b) => b.textContent?.startsWith(name))!;
    expect(button('failed').textContent).toBe('failed 1');
    expect(button('completed').textContent).toBe('completed 1');
    expect(button('working').textContent).toBe('working 0');
    expect(button('all').textContent).toBe('all 2');
    act(() => button('failed').click());
    expect(useListAsk.getState().filter).toBe('failed');
    const search = view.container.querySelector<HTMLInputElement>('input[aria-label="Search tasks"]')!;
    // Typed as a person types: React hears the input event.
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
    act(() => {
      setValue.call(search, 'slow');
      search.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(useListAsk.getState()).toMatchObject({ filter: 'failed', query: 'slow' });
  });
});
