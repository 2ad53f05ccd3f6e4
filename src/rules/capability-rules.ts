/**
 * Rules about what a receiver declares and whether it behaves as declared: capabilities, undeclared methods,
 * per-tool taskSupport, tasks/list paging. Judged, like the wire rules, from the raw messages in the traffic log.
 */
import { isObject, PLAIN_CALL_REFUSALS } from '../mcp';
import {
  answeredWith,
  exchanges,
  judgeable,
  offence,
  taskAnswerId,
  taskIdOf,
  wireOffence,
  type Context,
  type Found,
  type Judgement,
} from './evidence';
import { count, was } from './words';

const METHOD_NOT_FOUND = -32601;

const toolNamed = (ctx: Context, params: Record<string, unknown>) =>
  typeof params.name === 'string' ? ctx.input.tools.find((t) => t.name === params.name) : undefined;

export function capabilityAbsentError(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  if (ctx.input.support.toolCall)
    for (const x of exchanges(ctx, 'tools/call')) {
      const tool = toolNamed(ctx, x.params);
      if (!isObject(x.params.task) || tool?.taskSupport !== 'forbidden' || !judgeable(x)) continue;
      n++;
      if (x.error?.code !== METHOD_NOT_FOUND)
        offences.push(
          wireOffence(
            x.answer,
            `task-augmented call of ${tool.name} (taskSupport forbidden) answered ${answeredWith(x)}`,
          ),
        );
    }
  return {
    id: 'capability-absent-error',
    observations: n,
    offences,
    passReason: `${count(n, 'task call')} of tools that forbid tasks, each refused with -32601.`,
    brokenReason: (k) =>
      `${count(k, 'task call')} of tools that forbid tasks ${was(k)} not refused with -32601.`,
    unobservedReason: 'No tool was called as a task against its taskSupport.',
  };
}

/** 2025-11-25: tasks/list or tasks/cancel the receiver does not declare, asked anyway (by the check, or a person). */
export function undeclaredMethodRefused(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  const undeclared = [
    ...(ctx.input.support.list ? [] : ['tasks/list']),
    ...(ctx.input.support.cancel ? [] : ['tasks/cancel']),
  ];
  for (const method of undeclared)
    for (const x of exchanges(ctx, method)) {
      if (!judgeable(x)) continue;
      n++;
      if (x.error?.code !== METHOD_NOT_FOUND)
        offences.push(
          wireOffence(x.answer, `${method}, not declared, answered ${answeredWith(x)}`, taskIdOf(x.params)),
        );
    }
  return {
    id: 'undeclared-method-refused',
    observations: n,
    offences,
    passReason: `${count(n, 'request')} for a tasks method the receiver does not declare, each refused with -32601.`,
    brokenReason: (k) =>
      `${count(k, 'request')} for a tasks method the receiver does not declare ${was(k)} answered otherwise than -32601 (allowed; -32601 says it plainly).`,
    unobservedReason: 'No undeclared tasks method asked (the active check asks).',
  };
}

export function toolTaskSupport(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  const declared = ctx.input.support.toolCall;
  for (const x of exchanges(ctx, 'tools/call')) {
    const tool = toolNamed(ctx, x.params);
    if (!tool || tool.taskSupport === 'receiver') continue;
    const asTask = isObject(x.params.task);
    if (!declared) {
      // Without tasks.requests.tools.call the task field is to be ignored: a task answer breaks that.
      if (!asTask) continue;
      n++;
      if (x.result !== undefined && taskAnswerId(x.result, ctx.era) !== undefined)
        offences.push(
          wireOffence(x.answer, `${tool.name}: a task although tools/call tasks are not declared`),
        );
      continue;
    }
    if (tool.taskSupport === 'required' && !asTask) {
      if (!judgeable(x)) continue;
      n++;
      if (!PLAIN_CALL_REFUSALS.has(x.error?.code ?? 0))
        offences.push(
          wireOffence(
            x.answer,
            `plain call of ${tool.name} (taskSupport required) answered ${answeredWith(x)}`,
          ),
        );
    } else if (asTask && tool.taskSupport !== 'forbidden') {
      n++;
      if (x.result && !(x.result !== undefined && taskAnswerId(x.result, ctx.era) !== undefined))
        offences.push(
          wireOffence(
            x.answer,
            `task call of ${tool.name} (taskSupport ${tool.taskSupport}) answered with a plain result`,
          ),
        );
    }
  }
  return {
    id: 'tool-task-support',
    observations: n,
    offences,
    passReason: `${count(n, 'tool call')}, each answered as the tool's taskSupport says.`,
    brokenReason: (k) =>
      `${count(k, 'tool call')} ${was(k)} answered against the tool's declared taskSupport.`,
    unobservedReason: 'No tool call seen yet.',
  };
}

export function capabilityTasksList(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const x of exchanges(ctx, 'tasks/list')) {
    n++;
    if (ctx.input.support.list && x.error?.code === METHOD_NOT_FOUND)
      offences.push(wireOffence(x.answer, 'tasks/list declared (tasks.list) but answered -32601'));
  }
  return {
    id: 'capability-tasks-list',
    observations: n,
    offences,
    passReason: `tasks/list answered as declared (${count(n, 'page')}).`,
    brokenReason: (k) => `tasks.list is declared but tasks/list was refused as unknown ${count(k, 'time')}.`,
    unobservedReason: 'tasks/list not asked.',
  };
}

export function capabilityTasksCancel(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  const declared = ctx.era === '2026-07-28' || ctx.input.support.cancel;
  for (const x of exchanges(ctx, 'tasks/cancel')) {
    n++;
    if (declared && x.error?.code === METHOD_NOT_FOUND)
      offences.push(wireOffence(x.answer, 'tasks/cancel declared but answered -32601', taskIdOf(x.params)));
  }
  // 2025-11-25: a cancel of a running task is answered with the task, already cancelled.
  if (ctx.era === '2025-11-25')
    for (const { task, obs } of ctx.tasks) {
      const endedAt = obs.find(
        (o) =>
          o.source !== 'cancel' &&
          o.status !== null &&
          ['completed', 'failed', 'cancelled'].includes(o.status),
      )?.at;
      for (const o of obs)
        if (
          o.source === 'cancel' &&
          (endedAt === undefined || (o.sentAt ?? o.at) < endedAt) &&
          o.status !== null &&
          o.status !== 'cancelled'
        )
          offences.push(offence(task.taskId, o.at, `cancel answered with status ${o.status}, not cancelled`));
    }
  return {
    id: 'capability-tasks-cancel',
    observations: n,
    offences,
    passReason: `tasks/cancel answered as declared (${count(n, 'cancel')}).`,
    brokenReason: (k) => `${count(k, 'cancel')} refused as unknown or answered without the task cancelled.`,
    unobservedReason: 'No cancel sent.',
  };
}

export function listPaging(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  const given = new Set<string>();
  for (const x of exchanges(ctx, 'tasks/list')) {
    const cursor = typeof x.params.cursor === 'string' ? x.params.cursor : undefined;
    if (cursor !== undefined && given.has(cursor)) {
      n++;
      if (x.error)
        offences.push(wireOffence(x.answer, `its own nextCursor refused: ${x.error.message.slice(0, 80)}`));
    }
    const next = x.result?.nextCursor;
    if (typeof next === 'string') given.add(next);
  }
  return {
    id: 'list-paging',
    observations: n,
    offences,
    passReason: `${count(n, 'follow-up page')}, each answered.`,
    brokenReason: (k) => `${count(k, 'nextCursor')} the receiver gave ${was(k)} refused on the next page.`,
    unobservedReason: 'tasks/list never gave a second page.',
  };
}
