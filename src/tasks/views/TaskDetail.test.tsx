// @vitest-environment jsdom
import { Profiler, act } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TaskSnapshot } from '../../mcp';
import { createQueryClient } from '../../tracker/queries';
import { newTrackedTask, type TrackedTask } from '../../tracker/task-store';
import { applyTaskChanges } from '../../tracker/task-changes';
import { useConnection } from '../../state/connection-store';
import { tasksStore } from '../tasks-store';
import { reactRoot } from '../../../test/helpers/react-root';
import { TaskDetail } from './TaskDetail';

const view = reactRoot();
beforeEach(() => {
  useConnection.setState({
    id: 1,
    status: 'connected',
    support: { list: true, cancel: true, toolCall: true },
  });
  tasksStore.getState().reset(1);
});

/** Renders the detail of a task held as `over` says, with `snapshot` as its last answer. */
function render(over: Partial<TrackedTask>, snapshot?: Omit<TaskSnapshot, 'taskId' | 'shape'>) {
  const { entries: _entries, ...task } = newTrackedTask({
    taskId: 't1',
    connectionId: 1,
    origin: 'created',
    firstSeenAt: Date.now(),
    ...over,
  });
  const queryClient = createQueryClient();
  if (snapshot)
    tasksStore.getState().apply({ snapshots: [['t1', { taskId: 't1', shape: 'flat', ...snapshot }]] });
  act(() =>
    applyTaskChanges(tasksStore, {
      added: ['t1'],
      changes: [{ task: { ...task, ...over }, newEntries: [] }],
    }),
  );
  act(() =>
    view.root.render(
      <QueryClientProvider client={queryClient}>
        <TaskDetail taskId="t1" />
      </QueryClientProvider>,
    ),
  );
  const detail = view.container.querySelector<HTMLElement>('[data-testid="task-detail"]')!;
  const cancel = () =>
    [...detail.querySelectorAll('button')].find((b) => b.textContent?.includes('Cancel task'));
  return { detail, cancel };
}

describe('TaskDetail', () => {
  it('a working task can be cancelled; once cancelled, nothing is left to cancel and no result is awaited', () => {
    const working = render({ status: 'working', lifecycle: 'live' }, { status: 'working' });
    expect(working.cancel()).toBeDefined();
    const cancelled = render({ status: 'cancelled', lifecycle: 'terminal' }, { status: 'cancelled' });
    expect(cancelled.cancel()).toBeUndefined();
    expect(cancelled.detail.textContent).toContain('cancelled');
    expect(cancelled.detail.textContent).toContain('No result: a cancelled task has none to fetch.');
  });

  it('failed: the headline says so, with the last statusMessage under it', () => {
    const { detail } = render(
      { status: 'failed', lifecycle: 'terminal' },
      { status: 'failed', statusMessage: 'Failed: disk full' },
    );
    expect(detail.querySelector('[data-testid="status-headline"]')?.textContent).toContain('Failed');
    expect(detail.querySelector('[data-testid="status-message"]')?.textContent).toBe('Failed: disk full');
  });

  it('an id the receiver does not know: said in one alert, after one poll, with nothing to cancel', () => {
    const { detail, cancel } = render({
      status: null,
      lifecycle: 'unknown',
      pollCount: 1,
      nextPollInMs: null,
      lastError: {
        kind: 'unknown-task',
        message: 'The receiver does not know this task id (wrong id, or another session).',
      },
    });
    const alerts = detail.querySelectorAll('[role="alert"]');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.textContent).toContain('does not know this task id');
    expect(detail.querySelector('[data-testid="poll-count"]')?.textContent).toBe('1');
    expect(detail.querySelector('header')?.textContent).toContain('unknown');
    expect(cancel()).toBeUndefined();
  });

  it('opens in two commits: the first draws the header and figures, the timeline, result and observations follow', () => {
    const { entries: _entries, ...task } = newTrackedTask({
      taskId: 't1',
      connectionId: 1,
      origin: 'created',
      firstSeenAt: Date.now(),
      status: 'working',
    });
    act(() => applyTaskChanges(tasksStore, { added: ['t1'], changes: [{ task, newEntries: [] }] }));
    // What each commit left in the DOM, read as React commits it.
    const commits: { id: boolean; timeline: boolean; observations: boolean }[] = [];
    const seen = () => ({
      id: view.container.querySelector('[data-testid="task-id"]') !== null,
      timeline: view.container.querySelector('[data-testid="timeline"]') !== null,
      observations: view.container.querySelector('[data-testid="observations"]') !== null,
    });
    act(() =>
      view.root.render(
        <QueryClientProvider client={createQueryClient()}>
          <Profiler id="detail" onRender={() => commits.push(seen())}>
            <TaskDetail taskId="t1" />
          </Profiler>
        </QueryClientProvider>,
      ),
    );
    expect(commits[0]).toEqual({ id: true, timeline: false, observations: false });
    expect(seen()).toEqual({ id: true, timeline: true, observations: true });
  });

  it("is not drawn again when the engine answers its opening: the row's record was already here", () => {
    const { entries: _entries, ...task } = newTrackedTask({
      taskId: 't1',
      connectionId: 1,
      origin: 'created',
      firstSeenAt: Date.now(),
      status: 'working',
    });
    act(() => applyTaskChanges(tasksStore, { added: ['t1'], changes: [{ task, newEntries: [] }] }));
    let renders = 0;
    act(() =>
      view.root.render(
        <QueryClientProvider client={createQueryClient()}>
          <Profiler id="detail" onRender={() => renders++}>
            <TaskDetail taskId="t1" />
          </Profiler>
        </QueryClientProvider>,
      ),
    );
    const drawn = renders;
    // The list's window, now naming the open task: the batch that answers the page's taskView.
    act(() =>
      tasksStore.getState().apply({
        taskList: {
          all: false,
          detail: 't1',
          filter: 'all',
          query: '',
          total: 1,
          start: 0,
          ids: ['t1'],
          counts: {},
        },
      }),
    );
    expect(renders).toBe(drawn);
  });
});
