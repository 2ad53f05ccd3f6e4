import { describe, expect, it } from 'vitest';
import { createTasksStore, newTrackedTask, type TrackedTask } from './task-store';
import { countByFilter, visibleTaskIds } from './list-filter';

function stateWith(tasks: Array<Partial<TrackedTask> & { taskId: string }>) {
  const store = createTasksStore();
  store.setState((s) => {
    for (const t of tasks)
      s.tasks.set(t.taskId, { ...newTrackedTask({ connectionId: 1, origin: 'list', firstSeenAt: 0, ...t }) });
    return { order: tasks.map((t) => t.taskId) };
  });
  return store.getState();
}

describe('the task list model', () => {
  const state = stateWith([
    { taskId: 'aa1', tool: 'slow_job', status: 'working' },
    { taskId: 'bb2', tool: 'flaky_job', status: 'failed', lifecycle: 'terminal' },
    { taskId: 'cc3', tool: 'slow_job', status: 'completed', lifecycle: 'purged' },
    { taskId: 'dd4', tool: 'slow_job', status: 'working', lifecycle: 'purged' },
    { taskId: 'ee5', tool: 'flaky_job', status: 'failed', lifecycle: 'purged' },
  ]);

  it('shows the newest first, filtered by outcome or purged, searched by id or tool', () => {
    expect(visibleTaskIds(state, 'all', '')).toEqual(['ee5', 'dd4', 'cc3', 'bb2', 'aa1']);
    // A purged task is still found by how it ended; one purged while it worked has no outcome to be found by.
    expect(visibleTaskIds(state, 'failed', '')).toEqual(['ee5', 'bb2']);
    expect(visibleTaskIds(state, 'completed', '')).toEqual(['cc3']);
    expect(visibleTaskIds(state, 'working', '')).toEqual(['aa1']);
    expect(visibleTaskIds(state, 'purged', '')).toEqual(['ee5', 'dd4', 'cc3']);
    expect(visibleTaskIds(state, 'all', 'SLOW')).toEqual(['dd4', 'cc3', 'aa1']);
    expect(visibleTaskIds(state, 'all', 'bb')).toEqual(['bb2']);
  });

  it('counts a purged task that ended under its outcome and under purged', () => {
    expect(countByFilter(state)).toEqual({ all: 5, working: 1, failed: 2, completed: 1, purged: 3 });
  });

  it('counts a task whose session ended while it worked under all only, never as working', () => {
    const ended = stateWith([
      { taskId: 'aa1', status: 'working' },
      { taskId: 'bb2', status: 'working', lifecycle: 'session-ended' },
      { taskId: 'cc3', status: 'completed', lifecycle: 'session-ended' },
    ]);
    expect(countByFilter(ended)).toEqual({ all: 3, working: 1, completed: 1 });
    expect(visibleTaskIds(ended, 'working', '')).toEqual(['aa1']);
  });
});
