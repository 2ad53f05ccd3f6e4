import { checkableTools } from '../engine/active-check/plan';
import { parseJsonObject, type ToolInfo } from '../mcp';
import { lastRunArgs } from '../tools/run-drafts-store';

/**
 * What the check's dialog offers: every tool that may run as a task, with the arguments it starts from.
 * The check sends the arguments the person leaves there, as `taskscope check --args` does.
 */

/** The tools the check may run as a task: those it can fill from defaults first (its own order), then the rest. */
export function checkChoices(tools: readonly ToolInfo[]): ToolInfo[] {
  const fillable = checkableTools(tools).map((c) => c.tool);
  const names = new Set(fillable.map((t) => t.name));
  return [...fillable, ...tools.filter((t) => t.taskSupport !== 'forbidden' && !names.has(t.name))];
}

export type ArgsSource = 'last-run' | 'defaults';

/** The arguments a tool's field starts with: those of its last run here, else the defaults the check would send. */
export function prefillArgs(
  receiverUrl: string,
  tool: ToolInfo,
): { args: Record<string, unknown>; source: ArgsSource } {
  const last = lastRunArgs(receiverUrl, tool.name);
  if (last) return { args: last, source: 'last-run' };
  return { args: checkableTools([tool])[0]?.args ?? {}, source: 'defaults' };
}

/** The field's text for arguments: `{}` on one line, anything more indented. */
export const argsText = (args: Record<string, unknown>) =>
  Object.keys(args).length === 0 ? '{}' : JSON.stringify(args, null, 2);

/** The arguments as typed: a JSON object (an empty field is no arguments), or why they cannot be sent. */
export function parseArgs(
  text: string,
): { ok: true; args: Record<string, unknown> } | { ok: false; error: string } {
  const read = parseJsonObject(text, 'The arguments must be a JSON object, e.g. {"topic": "tides"}');
  return read.ok ? { ok: true, args: read.value ?? {} } : read;
}
