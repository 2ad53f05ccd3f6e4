import type { ToolInfo } from '../mcp';

/** A tool that can run as a task: taskSupport required or optional, or (2026-07-28) the receiver decides. */
export const runsAsTask = (tool: Pick<ToolInfo, 'taskSupport'>): boolean => tool.taskSupport !== 'forbidden';

/** The tools that run as tasks first, then those that never do, each group in the receiver's own order. */
export function taskToolsFirst<T extends Pick<ToolInfo, 'taskSupport'>>(
  tools: readonly T[],
): { tasks: T[]; plain: T[] } {
  return { tasks: tools.filter(runsAsTask), plain: tools.filter((t) => !runsAsTask(t)) };
}
