import { classifyError, isObject, PLAIN_CALL_REFUSALS, type ToolInfo } from '../../mcp';
import { defaultArgs } from './plan';
import { codeText, excerpt, Skip, skip, Stopped, type Attempt, type Probe } from './probe';

/**
 * The active check's steps on tools called against their taskSupport (2025-11-25): a plain call of a tool
 * that requires a task, and a task call of one that forbids it. A person's client never sends either, so the
 * page and its traffic never show them; the check does, and the passive rules judge the exchanges with the
 * rest of the traffic. A receiver that breaks the rule may run the tool (SDK 1.32 servers run a forbidden tool
 * called as a task, then refuse the answer), so the check calls only the tool the person picked, or one the
 * receiver marks read-only (annotations.readOnlyHint), with its defaults. Each returns the step's note.
 */

const noTaskSupport = '2026-07-28 has no per-tool taskSupport: the receiver decides each call.';

/** A tool the probe may call: the person's pick with its arguments, else a read-only one filled from defaults. */
async function safeTool(
  p: Probe,
  candidates: readonly ToolInfo[],
): Promise<{ tool: ToolInfo; args: Record<string, unknown> } | undefined> {
  const chosen = await p.taskTool().catch((error: unknown) => {
    if (error instanceof Skip) return undefined;
    throw error;
  });
  const picked = chosen && candidates.find((t) => t.name === chosen.tool.name);
  if (picked && chosen) return { tool: picked, args: chosen.args };
  for (const tool of candidates) {
    const args = tool.readOnly ? defaultArgs(tool) : undefined;
    if (args) return { tool, args };
  }
  return undefined;
}

/** The call's answer or error; null when none came within the deadline. A stop or a broken transport is thrown on. */
async function callWithin(
  p: Probe,
  params: Record<string, unknown>,
  timeoutMs: number,
): Promise<Attempt | null> {
  try {
    return await p.attempt('tools/call', params, timeoutMs);
  } catch (error) {
    if (p.stopped || error instanceof Stopped) throw error;
    const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
    if (classifyError(cause, { method: 'tools/call' }).kind === 'timeout') return null;
    throw error;
  }
}

export async function plainCallOfRequired(p: Probe): Promise<string> {
  if (p.target.era === '2026-07-28') skip(noTaskSupport);
  if (!p.target.support.toolCall)
    p.notJudged(
      'tool-task-support',
      'the receiver declares no task-augmented tools/call, so no tool requires a task',
    );
  const required = (await p.tools()).filter((t) => t.taskSupport === 'required');
  if (required.length === 0)
    p.notJudged('tool-task-support', 'no tool here requires a task (execution.taskSupport "required")');
  const pick = await safeTool(p, required);
  if (!pick)
    p.notJudged(
      'tool-task-support',
      `no tool that requires a task is the one picked for the check or marked read-only with defaults for every required argument (${required.map((t) => t.name).join(', ')})`,
    );
  const name = pick.tool.name;
  const offence = (detail: string) => ({ at: Date.now(), detail });
  const sentAt = Date.now();
  const attempt = await callWithin(p, { name, arguments: pick.args }, p.timing.requestMs);
  if (!attempt) {
    // A refusal is immediate; a receiver that runs the tool without a task holds the call for its run.
    const said = `no answer within ${Math.round(p.timing.requestMs / 1000)} s (it seems to run the tool)`;
    p.broken(
      'tool-task-support',
      `A plain call of ${name}, which requires a task, was not refused: ${said}. 2025-11-25 asks for a -32601 error.`,
      offence(`tools/call ${name} without task: ${said}`),
    );
    return 'not refused: no answer';
  }
  const { answer, error } = attempt;
  if (error && PLAIN_CALL_REFUSALS.has(error.code ?? 0)) {
    p.find(
      'tool-task-support',
      'pass',
      `A plain call of ${name}, which requires a task, was refused with ${error.code}.`,
    );
    return `refused with ${error.code}`;
  }
  const said = error
    ? `answered ${codeText(error)}`
    : isObject(answer) && answer.isError === true
      ? `answered with an isError result instead of a JSON-RPC -32601 error (${excerpt(answer)})`
      : isObject(answer) && isObject(answer.task)
        ? 'answered with a task although none was asked for'
        : `ran it and answered ${excerpt(answer)}`;
  // A task it started anyway is the check's to follow and cancel.
  if (!error) p.adopt(answer, { tool: name, args: pick.args }, sentAt);
  p.broken(
    'tool-task-support',
    `A plain call of ${name}, which requires a task, ${said}; 2025-11-25 says servers MUST return -32601.`,
    offence(`tools/call ${name} without task: ${said}`),
  );
  return error ? `answered ${error.code}` : 'not refused';
}

export async function taskCallOfForbidden(p: Probe): Promise<string> {
  if (p.target.era === '2026-07-28') skip(noTaskSupport);
  if (!p.target.support.toolCall)
    p.notJudged(
      'capability-absent-error',
      'the receiver declares no task-augmented tools/call, so a task field is to be ignored there',
    );
  const forbidden = (await p.tools()).filter((t) => t.taskSupport === 'forbidden');
  if (forbidden.length === 0) p.notJudged('capability-absent-error', 'no tool here forbids tasks');
  const pick = await safeTool(p, forbidden);
  if (!pick)
    p.notJudged(
      'capability-absent-error',
      'no tool that forbids tasks is marked read-only (annotations.readOnlyHint) with defaults for every required argument: a receiver that breaks this rule may run the tool, so the check calls none that could change anything',
    );
  const name = pick.tool.name;
  const sentAt = Date.now();
  const attempt = await callWithin(p, { name, arguments: pick.args, task: {} }, p.timing.createMs);
  if (!attempt) {
    const said = `no answer within ${Math.round(p.timing.createMs / 1000)} s`;
    p.broken(
      'capability-absent-error',
      `A task call of ${name}, which forbids tasks, was not refused: ${said}.`,
      {
        at: Date.now(),
        detail: `tools/call ${name} as a task: ${said}`,
      },
    );
    return 'not refused: no answer';
  }
  const { answer, error } = attempt;
  if (error?.code === -32601) {
    p.find(
      'capability-absent-error',
      'pass',
      `A task call of ${name}, which forbids tasks, was refused with -32601.`,
    );
    return 'refused with -32601';
  }
  const task = error ? null : p.adopt(answer, { tool: name, args: pick.args }, sentAt);
  const said = error
    ? `answered ${codeText(error)}`
    : task
      ? `ran it as a task (${task.taskId})`
      : `ran it without a task and answered ${excerpt(answer)}`;
  p.broken(
    'capability-absent-error',
    `A task call of ${name}, which forbids tasks, ${said}; 2025-11-25 says servers SHOULD return -32601.`,
    {
      ...(task ? { taskId: task.taskId } : {}),
      at: Date.now(),
      detail: `tools/call ${name} as a task: ${said}`,
    },
  );
  return error ? `answered ${error.code}` : task ? 'ran as a task' : 'ran without a task';
}
