import type { TaskStatus } from '../mcp';
import type { TasksState, TrackedTask } from './task-store';

/** What the task list filters by: a status, or purged for tasks the receiver no longer has (or never had). */
export type ListFilter = TaskStatus | 'purged' | 'all';

export const filterKey = (task: TrackedTask): Exclude<ListFilter, 'all'> =>
  task.lifecycle === 'purged' || task.lifecycle === 'unknown' ? 'purged' : (task.status ?? 'working');

/** The ids the list shows, newest first. A fresh array each call: read it through a shallow selector. */
export function visibleTaskIds(state: TasksState, filter: ListFilter, query: string): string[] {
  const q = query.trim().toLowerCase();
  const ids: string[] = [];
  for (let i = state.order.length - 1; i >= 0; i--) {
    const task = state.tasks.get(state.order[i] ?? '');
    if (!task) continue;
    if (filter !== 'all' && filterKey(task) !== filter) continue;
    if (q && !task.taskId.toLowerCase().includes(q) && !(task.tool ?? '').toLowerCase().includes(q)) continue;
    ids.push(task.taskId);
  }
  return ids;
}

/** How many tasks each filter would show. */
export function countByFilter(state: TasksState): Partial<Record<ListFilter, number>> {
  const counts: Partial<Record<ListFilter, number>> = { all: state.order.length };
  for (const taskId of state.order) {
    const task = state.tasks.get(taskId);
    if (task) counts[filterKey(task)] = (counts[filterKey(task)] ?? 0) + 1;
  }
  return counts;
}
