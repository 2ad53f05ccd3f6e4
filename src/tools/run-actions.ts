import type { ClassifiedError, Normalised, TaskResultSnapshot, ToolInfo } from '../mcp';
import { getEngine } from '../bridge/engine-bridge';
import { useConnection } from '../state/connection-store';
import { useSelection } from '../state/selection-store';
import { rememberRunArgs } from './run-drafts-store';

export type RunOutcome =
  | { ok: true; taskId: string }
  /** The receiver answered at once instead of creating a task (2026-07-28 lets it decide). */
  | { ok: true; taskId?: undefined; answer: Normalised<TaskResultSnapshot> }
  | { ok: false; error: ClassifiedError };

/** tools/call as a task; the new task is tracked and shown. Running never waits for earlier runs. */
export async function runToolAsTask(
  tool: ToolInfo,
  args: Record<string, unknown>,
  ttl?: number,
): Promise<RunOutcome> {
  rememberRunArgs(useConnection.getState().url, tool.name, args);
  const outcome = await getEngine().request({ type: 'run', tool, args, ttl });
  if (outcome.ok && outcome.taskId !== undefined)
    useSelection.getState().select({ kind: 'task', taskId: outcome.taskId });
  return outcome;
}

export type CallOutcome =
  { ok: true; answer: Normalised<TaskResultSnapshot> } | { ok: false; error: ClassifiedError };

/** A plain tools/call (no task), for tools that forbid tasks or allow both. */
export function callToolPlain(tool: ToolInfo, args: Record<string, unknown>): Promise<CallOutcome> {
  rememberRunArgs(useConnection.getState().url, tool.name, args);
  return getEngine().request({ type: 'callPlain', tool, args });
}
