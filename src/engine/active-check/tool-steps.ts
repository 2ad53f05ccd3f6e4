import { isObject } from '../../mcp';
import { defaultArgs } from './plan';
import { codeText, excerpt, skip, type Probe } from './probe';

/**
 * The active check's steps on tools called against their taskSupport (2025-11-25): a plain call of a tool
 * that requires a task, and a task call of one that forbids it. A person's client never sends either, so the
 * page and its traffic never show them; the check does, and the passive rules judge the exchanges with the
 * rest of the traffic. Each returns the note shown beside the step.
 */

/** -32601 is what 2025-11-25 names; -32600 (invalid request) says the same plainly enough. */
const REFUSALS = new Set([-32601, -32600]);

const noTaskSupport = '2026-07-28 has no per-tool taskSupport: the receiver decides each call.';

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
  const chosen = await p.taskTool().catch(() => undefined);
  const pick = required
    .map((tool) => ({ tool, args: chosen?.tool.name === tool.name ? chosen.args : defaultArgs(tool) }))
    .find((c) => c.args !== undefined);
  if (!pick?.args)
    p.notJudged(
      'tool-task-support',
      `every tool that requires a task needs an argument without a default (${required.map((t) => t.name).join(', ')})`,
    );
  const name = pick.tool.name;
  const offence = (detail: string) => ({ at: Date.now(), detail });
  let attempt;
  try {
    attempt = await p.attempt('tools/call', { name, arguments: pick.args });
  } catch (error) {
    // A refusal is immediate; a receiver that runs the tool without a task holds the call for its run.
    const said = error instanceof Error ? error.message : String(error);
    p.broken(
      'tool-task-support',
      `A plain call of ${name}, which requires a task, was not refused: ${said}. 2025-11-25 asks for a -32601 error at once.`,
      offence(`tools/call ${name} without task: ${said}`),
    );
    return 'not refused: no answer';
  }
  const { answer, error } = attempt;
  if (error && REFUSALS.has(error.code ?? 0)) {
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
  if (!error) p.adopt(answer, { tool: name, args: pick.args }, Date.now());
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
  const pick = forbidden.map((tool) => ({ tool, args: defaultArgs(tool) })).find((c) => c.args !== undefined);
  if (!pick?.args)
    p.notJudged(
      'capability-absent-error',
      `every tool that forbids tasks needs an argument without a default (${forbidden.map((t) => t.name).join(', ')})`,
    );
  const name = pick.tool.name;
  const sentAt = Date.now();
  let attempt;
  try {
    attempt = await p.attempt('tools/call', { name, arguments: pick.args, task: {} }, p.timing.createMs);
  } catch (error) {
    const said = error instanceof Error ? error.message : String(error);
    p.broken(
      'capability-absent-error',
      `A task call of ${name}, which forbids tasks, was not refused: ${said}.`,
      { at: Date.now(), detail: `tools/call ${name} as a task: ${said}` },
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
