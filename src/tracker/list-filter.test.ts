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
  ]);

  it('shows the newest first, filtered by status or purged, searched by id or tool', () => {
    expect(visibleTaskIds(state, 'all', '')).toEqual(['cc3', 'bb2', 'aa1']);
    expect(visibleTaskIds(state, 'failed', '')).toEqual(['bb2']);
    expect(visibleTaskIds(state, 'purged', '')).toEqual(['cc3']);
    expect(visibleTaskIds(state, 'all', 'SLOW')).toEqual(['cc3', 'aa1']);
    expect(visibleTaskIds(state, 'all', 'bb')).toEqual(['bb2']);
  });

  it('counts each filter once, a purged task under purged only', () => {
    expect(countByFilter(state)).toEqual({ all: 3, working: 1, failed: 1, purged: 1 });
  });
});
