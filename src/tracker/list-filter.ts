import { isTerminal, type TaskStatus } from '../mcp';
import type { TasksState, TrackedTask } from './task-store';

/** What the task list filters by: a status, or purged for tasks the receiver no longer has (or never had). */
export type ListFilter = TaskStatus | 'purged' | 'all';

/**
 * The filters a task is found under (none but all for a task whose session ended before it did). Its outcome comes first: a task that failed and was purged later is still
 * a failed task (and a purged one); a task gone before it ended has no outcome, only its purge.
 */
export function filterKeys(task: TrackedTask): Exclude<ListFilter, 'all'>[] {
  const gone = task.lifecycle === 'purged' || task.lifecycle === 'unknown';
  // A task whose session ended while it was live is no longer working, nor anything else: it is under all.
  if (task.lifecycle === 'session-ended' && !(task.status && isTerminal(task.status))) return [];
  if (!gone) return [task.status ?? 'working'];
  return task.status && isTerminal(task.status) ? [task.status, 'purged'] : ['purged'];
}

/** The ids the list shows, newest first (computed in the Worker for the page's filter and search). */
export function visibleTaskIds(state: TasksState, filter: ListFilter, query: string): string[] {
  const q = query.trim().toLowerCase();
  const ids: string[] = [];
  for (let i = state.order.length - 1; i >= 0; i--) {
    const task = state.tasks.get(state.order[i] ?? '');
    if (!task) continue;
    if (filter !== 'all' && !filterKeys(task).includes(filter)) continue;
    if (q && !task.taskId.toLowerCase().includes(q) && !(task.tool ?? '').toLowerCase().includes(q)) continue;
    ids.push(task.taskId);
  }
  return ids;
}

/** How many tasks each filter would show (a purged task that ended counts under its outcome and purged). */
export function countByFilter(state: TasksState): Partial<Record<ListFilter, number>> {
  const counts: Partial<Record<ListFilter, number>> = { all: state.order.length };
  for (const taskId of state.order) {
    const task = state.tasks.get(taskId);
    if (task) for (const key of filterKeys(task)) counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
