import {
  classifyError,
  type ClassifiedError,
  type Normalised,
  type TaskResultSnapshot,
  type ToolInfo,
} from '../mcp';
import { getRuntime } from '../connection/runtime';
import { useSelection } from '../app/selection';
import { useTaskListStatus } from './list-status';

export type RunOutcome = { ok: true; taskId: string } | { ok: false; error: ClassifiedError };

/** tools/call as a task; the new task is tracked and shown. Running never waits for earlier runs. */
export async function runToolAsTask(
  tool: ToolInfo,
  args: Record<string, unknown>,
  ttl?: number,
): Promise<RunOutcome> {
  const runtime = getRuntime();
  if (!runtime) return { ok: false, error: { kind: 'other', message: 'Not connected to a receiver.' } };
  const sentAt = Date.now();
  try {
    const created = await runtime.api.createTask(tool, args, { ttl });
    if (!created.value) {
      return {
        ok: false,
        error: {
          kind: 'protocol',
          message: `The receiver did not answer with a task: ${created.warnings.map((w) => w.message).join('; ')}`,
        },
      };
    }
    runtime.tracker.track(created.value.taskId, {
      origin: 'created',
      tool: tool.name,
      initial: created,
      source: 'create',
      sentAt,
    });
    useSelection.getState().select({ kind: 'task', taskId: created.value.taskId });
    return { ok: true, taskId: created.value.taskId };
  } catch (error) {
    return { ok: false, error: classifyError(error, { method: 'tools/call' }) };
  }
}

/** Follows a task by id (from another client, a log, a colleague): polled at once to learn what it is. */
export function trackTaskId(rawId: string): boolean {
  const runtime = getRuntime();
  const taskId = rawId.trim();
  if (!runtime || taskId === '' || taskId.length > 512) return false;
  runtime.tracker.track(taskId, { origin: 'manual' });
  useSelection.getState().select({ kind: 'task', taskId });
  return true;
}

export async function cancelTask(taskId: string): Promise<ClassifiedError | null> {
  const runtime = getRuntime();
  if (!runtime) return null;
  return runtime.tracker.cancel(taskId);
}

export function refetchResult(taskId: string): void {
  getRuntime()?.tracker.refetchResult(taskId);
}

/** tasks/list, every page: new tasks are tracked, known ones updated. */
export async function refreshTaskList(): Promise<void> {
  const runtime = getRuntime();
  if (!runtime) return;
  useTaskListStatus.setState({ loading: true, error: undefined });
  try {
    await runtime.tracker.syncList();
    useTaskListStatus.setState({ loading: false, lastSyncedAt: Date.now() });
  } catch (error) {
    useTaskListStatus.setState({ loading: false, error: classifyError(error, { method: 'tasks/list' }) });
  }
}

export type CallOutcome =
  { ok: true; answer: Normalised<TaskResultSnapshot> } | { ok: false; error: ClassifiedError };

/** A plain tools/call (no task), for tools that forbid tasks or allow both. */
export async function callToolPlain(tool: ToolInfo, args: Record<string, unknown>): Promise<CallOutcome> {
  const runtime = getRuntime();
  if (!runtime) return { ok: false, error: { kind: 'other', message: 'Not connected to a receiver.' } };
  try {
    return { ok: true, answer: await runtime.api.callTool(tool, args) };
  } catch (error) {
    return { ok: false, error: classifyError(error, { method: 'tools/call' }) };
  }
}
