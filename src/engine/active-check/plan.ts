import { isObject, type ToolInfo } from '../../mcp';

/** What the report card's active check will do, and with which tools: shared by the engine and the page. */

/** The check's time limits, said in its confirmation as they are: per request, and for the whole check. */
export const CHECK_LIMITS = {
  /** tasks/get and every other short request. */
  requestMs: 10_000,
  /** The tools/call that starts a task. */
  createMs: 30_000,
  /** The whole check: past this it stops itself as Stop would (and cancels what it started). */
  overallMs: 180_000,
  /** After the last task it started has ended, how long before it reads them all again. */
  readAgainAfterMs: 3_000,
};

/** tasks/list pages followed at most by the check, and tasks read at most. */
export const CHECK_MAX_PAGES = 20;
export const CHECK_MAX_LISTED = 2_000;

export const seconds = (ms: number) => `${(ms / 1000).toLocaleString('en', { maximumFractionDigits: 1 })} s`;

export type CheckStepId =
  | 'unknown-id'
  | 'plain-call-required'
  | 'task-call-forbidden'
  | 'result-before-terminal'
  | 'cancel-live'
  | 'cancel-terminal'
  | 'short-ttl'
  | 'list-paging'
  | 'capability-absent'
  | 'read-after-end';

export const CHECK_STEPS: ReadonlyArray<{ id: CheckStepId; title: string }> = [
  { id: 'unknown-id', title: 'tasks/get on an unknown task id' },
  { id: 'plain-call-required', title: 'A plain call of a tool that requires a task' },
  { id: 'task-call-forbidden', title: 'A task call of a tool that forbids tasks' },
  { id: 'result-before-terminal', title: 'tasks/result before the task ends' },
  { id: 'cancel-live', title: 'tasks/cancel on a running task' },
  { id: 'cancel-terminal', title: 'tasks/cancel on an ended task' },
  { id: 'short-ttl', title: 'A task with a short requested ttl' },
  { id: 'list-paging', title: 'tasks/list paging' },
  { id: 'capability-absent', title: 'Methods the receiver does not declare' },
  { id: 'read-after-end', title: 'Statuses read again after the tasks ended' },
];

/** A tool the check may use, with the arguments it would send (defaults only). */
export interface CheckableTool {
  tool: ToolInfo;
  args: Record<string, unknown>;
}

/** The arguments a tool gets from its schema's defaults; undefined when a required one has no default. */
export function defaultArgs(tool: ToolInfo): Record<string, unknown> | undefined {
  const schema = tool.inputSchema;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((r): r is string => typeof r === 'string')
    : [];
  const args: Record<string, unknown> = {};
  for (const name of required) {
    const property = properties[name];
    if (!isObject(property) || !('default' in property)) return undefined;
    args[name] = property.default;
  }
  return args;
}

/**
 * The tools the check can run as tasks: ones that allow a task (optional, required, or the receiver's
 * choice in 2026-07-28) and whose every required argument has a default. The check sends only those defaults.
 */
export function checkableTools(tools: readonly ToolInfo[]): CheckableTool[] {
  const out: CheckableTool[] = [];
  for (const tool of tools) {
    if (tool.taskSupport === 'forbidden') continue;
    const args = defaultArgs(tool);
    if (args) out.push({ tool, args });
  }
  // Tools that say they run as tasks come first: in 2026-07-28 any tool may, and one a dual-era server marks
  // forbidden for 2025 clients likely answers at once, leaving the cancel and ttl steps nothing to watch.
  const rank = (t: CheckableTool) => (t.tool.taskSupport === 'receiver' ? 1 : 0);
  return out.sort((a, b) => rank(a) - rank(b));
}

/**
 * The required arguments of `tool` that `args` leaves out. The check sends a person's arguments as given, so
 * the page says which are missing before it runs, rather than the receiver refusing the call mid-check.
 */
export function missingArguments(tool: ToolInfo, args: Record<string, unknown>): string[] {
  const required = tool.inputSchema.required;
  if (!Array.isArray(required)) return [];
  return required.filter((name): name is string => typeof name === 'string' && !Object.hasOwn(args, name));
}
