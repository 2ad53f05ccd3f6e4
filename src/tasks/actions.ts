import type { ClassifiedError } from '../mcp';
import { getEngine } from '../bridge/engine-bridge';
import { useSelection } from '../state/selection-store';
import { useConnection } from '../state/connection-store';
import type { TaskCall } from '../tracker/task-store';
import { draftFromCall } from '../tools/run-drafts-store';

/** Follows a task by id (from another client, a log, a colleague): polled at once to learn what it is. */
export async function trackTaskId(rawId: string): Promise<boolean> {
  const taskId = rawId.trim();
  if (taskId === '' || taskId.length > 512) return false;
  const tracked = await getEngine().request({ type: 'track', taskId });
  if (tracked) useSelection.getState().select({ kind: 'task', taskId });
  return tracked;
}

export function cancelTask(taskId: string): Promise<ClassifiedError | null> {
  return getEngine().request({ type: 'cancel', taskId });
}

/** Polls a live task now, whatever its interval (a receiver may ask for years between polls). */
export function pollNow(taskId: string): void {
  void getEngine().request({ type: 'pollNow', taskId });
}

/** Stops waiting for a task's open tasks/result, freeing the connection it holds. */
export function stopResult(taskId: string): void {
  void getEngine().request({ type: 'stopResult', taskId });
}

/** Follows the task ids pushes named beyond the automatic limit. */
export function trackSeenTasks(): Promise<number> {
  return getEngine().request({ type: 'trackSeen' });
}

export function refetchResult(taskId: string): void {
  void getEngine().request({ type: 'refetchResult', taskId });
}

/** tasks/list, every page: new tasks are tracked, known ones updated. */
export async function refreshTaskList(): Promise<void> {
  await getEngine().request({ type: 'syncList' });
}

/** Follows a task from another session's history in this one: asked at once whether the receiver knows it here. */
export function followTask(taskId: string): void {
  void getEngine().request({ type: 'follow', taskId });
}

/** Opens the run form of the task's tool, filled with the call that created the task. */
export function runAgain(taskId: string, call: TaskCall): void {
  draftFromCall(useConnection.getState().url, taskId, call);
  useSelection.getState().select({ kind: 'tool', name: call.tool });
}
