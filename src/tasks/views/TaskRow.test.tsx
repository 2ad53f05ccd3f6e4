// @vitest-environment jsdom
import { Profiler, act } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { beforeEach, describe, expect, it } from 'vitest';
import { createQueryClient } from '../../tracker/queries';
import { newTrackedTask, type TrackedTask } from '../../tracker/task-store';
import { applyTaskChanges } from '../../tracker/task-changes';
import { useConnection } from '../../state/connection-store';
import { tasksStore } from '../tasks-store';
import { TaskRow } from './TaskRow';
import { reactRoot } from '../../../test/helpers/react-root';

const record = (taskId: string, over: Partial<TrackedTask> = {}) => {
  const { entries: _entries, ...task } = newTrackedTask({
    taskId,
    connectionId: 1,
    origin: 'list',
    firstSeenAt: Date.now(),
    status: 'working',
    ...over,
  });
  return task;
};

const view = reactRoot();
beforeEach(() => {
  useConnection.setState({ id: 1 });
  tasksStore.getState().reset(1);
});

describe('TaskRow', () => {
  it('re-renders for its own task only: a poll of task B leaves row A alone', () => {
    const queryClient = createQueryClient();
    applyTaskChanges(tasksStore, {
      added: ['A', 'B'],
      changes: [
        { task: record('A', { tool: 'alpha' }), newEntries: [] },
        { task: record('B', { tool: 'beta' }), newEntries: [] },
      ],
    });
    const renders = { A: 0, B: 0 };
    act(() =>
      view.root.render(
        <QueryClientProvider client={queryClient}>
          {(['A', 'B'] as const).map((id) => (
            <Profiler key={id} id={id} onRender={() => renders[id]++}>
              <TaskRow taskId={id} />
            </Profiler>
          ))}
        </QueryClientProvider>,
      ),
    );
    const afterMount = { ...renders };
    expect(view.container.querySelector('[data-task-id="A"]')?.textContent).toContain('alpha');

    // One batch: task B was polled (a new record, a new timeline entry) and its snapshot changed.
    act(() => {
      applyTaskChanges(tasksStore, {
        added: [],
        changes: [
          {
            task: record('B', { tool: 'beta', status: 'completed', lifecycle: 'terminal', pollCount: 1 }),
            newEntries: [
              { kind: 'observation', at: Date.now(), source: 'poll', status: 'completed', warnings: [] },
            ],
          },
        ],
      });
      tasksStore.getState().apply({
        snapshots: [['B', { taskId: 'B', status: 'completed', shape: 'flat', ttl: 60_000 }]],
      });
    });
    expect(renders.A).toBe(afterMount.A);
    expect(renders.B).toBeGreaterThan(afterMount.B);
    expect(view.container.querySelector('[data-task-id="B"]')?.textContent).toContain('completed');
  });

  it('shows the progress and its message in the id’s place while the task runs, and gives the place back once it ended', () => {
    const progress = { progress: 3, total: 100, message: 'Step 3/100: bar', at: Date.now() };
    applyTaskChanges(tasksStore, {
      added: ['prog-task-1'],
      changes: [{ task: record('prog-task-1', { tool: 'slow_job', progress }), newEntries: [] }],
    });
    act(() =>
      view.root.render(
        <QueryClientProvider client={createQueryClient()}>
          <TaskRow taskId="prog-task-1" />
        </QueryClientProvider>,
      ),
    );
    const row = () => view.container.querySelector('[data-task-id="prog-task-1"]')!;
    expect(row().querySelector('[role="progressbar"]')?.getAttribute('aria-valuenow')).toBe('3');
    expect(row().querySelector('[data-testid="row-progress"]')?.textContent).toContain('Step 3/100: bar');
    const idShown = () => row().textContent?.includes('prog-task-1');
    expect(idShown()).toBe(false);

    act(() =>
      applyTaskChanges(tasksStore, {
        added: [],
        changes: [
          {
            task: record('prog-task-1', {
              tool: 'slow_job',
              progress,
              status: 'cancelled',
              lifecycle: 'terminal',
            }),
            newEntries: [],
          },
        ],
      }),
    );
    expect(row().querySelector('[role="progressbar"]')).toBeNull();
    expect(row().textContent).toContain('prog-task-1');
  });

  it('marks a task the report card’s check started, and only such a task', () => {
    applyTaskChanges(tasksStore, {
      added: ['mine', 'checks'],
      changes: [
        { task: record('mine', { tool: 'slow_job', origin: 'created' }), newEntries: [] },
        {
          task: record('checks', { tool: 'slow_job', origin: 'created', startedBy: 'check' }),
          newEntries: [],
        },
      ],
    });
    act(() =>
      view.root.render(
        <QueryClientProvider client={createQueryClient()}>
          <TaskRow taskId="mine" />
          <TaskRow taskId="checks" />
        </QueryClientProvider>,
      ),
    );
    const badge = (taskId: string) =>
      view.container.querySelector<HTMLElement>(
        `[data-task-id="${taskId}"] [data-testid="started-by-check"]`,
      );
    expect(badge('mine')).toBeNull();
    expect(badge('checks')?.textContent).toBe('check');
    expect(badge('checks')?.title).toContain("the report card's check");
  });
});
