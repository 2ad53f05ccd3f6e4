// @vitest-environment jsdom
import { act } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { beforeEach, describe, expect, it } from 'vitest';
import { createQueryClient } from '../../tracker/queries';
import { useConnection } from '../../state/connection-store';
import { tasksStore } from '../tasks-store';
import { TaskList } from './TaskList';
import { reactRoot } from '../../../test/helpers/react-root';

/**
 * The task list's notes and filter counts, drawn from what the engine's batches bring (the list's status, the
 * count of pushed ids not followed, the list window's counts); test/integration/hostile-engine.test.ts and
 * task-views.test.ts hold that the engine sends them.
 */
const view = reactRoot();
beforeEach(() => {
  useConnection.setState({ id: 1 });
  tasksStore.getState().reset(1);
});

const draw = () => {
  act(() =>
    view.root.render(
      <QueryClientProvider client={createQueryClient()}>
        <TaskList />
      </QueryClientProvider>,
    ),
  );
  const text = (testId: string) =>
    view.container.querySelector(`[data-testid="${testId}"]`)?.textContent ?? '';
  const filters = [...view.container.querySelectorAll('[aria-label="Filter by status"] button')].map(
    (b) => b.textContent,
  );
  return { text, filters };
};

describe('TaskList', () => {
  it('a listing cut at its cap says it stopped; pushed ids beyond those followed are counted and offered', () => {
    tasksStore.setState({
      listStatus: {
        loading: false,
        stopped: 'tasks/list stopped at 5000 items: the receiver lists more than Taskscope reads at once',
      },
    });
    tasksStore.setState({ untrackedSeen: 4800 });
    tasksStore.setState({
      list: { all: false, filter: 'all', query: '', total: 0, start: 0, ids: [], counts: { all: 201 } },
    });
    const { text, filters } = draw();
    expect(text('list-stopped')).toBe(
      'tasks/list stopped at 5000 items: the receiver lists more than Taskscope reads at once.',
    );
    expect(text('untracked-seen')).toContain('4,800 more task ids seen in pushes');
    expect(text('untracked-seen')).toContain('Track them');
    expect(filters).toContain('all 201');
  });

  it('the filters show the counts the engine gave: an ended task purged later counts under its outcome and under purged', () => {
    tasksStore.setState({
      list: {
        all: false,
        filter: 'all',
        query: '',
        total: 0,
        start: 0,
        ids: [],
        counts: { all: 2, failed: 1, cancelled: 1, purged: 2 },
      },
    });
    const { filters } = draw();
    expect(filters).toEqual(expect.arrayContaining(['failed 1', 'cancelled 1', 'purged 2', 'all 2']));
  });
});
