/**
 * Rules judged from the raw messages in the traffic log: error codes, `_meta`, what a call was answered with.
 * Whoever sent the question (the tracker, a person, the active check), the receiver's answer counts.
 */
import { RELATED_TASK_META, isObject, isOmittedBody, isTerminal } from '../mcp';
import {
  answered,
  exchanges,
  offence,
  taskIdOf,
  wireOffence,
  type Context,
  type Exchange,
  type Found,
  type Judgement,
} from './evidence';
import { count, was } from './words';

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
/** Words receivers use when they do not have a task. */
const NOT_FOUND_WORDS =
  /not found|unknown task|no such task|does not exist|doesn't exist|expired|purged|no task/i;

/**
 * Tasks whose result Taskscope holds only in part: cut when read (too deep, too many values) or left out of the
 * traffic log (too big). What is missing may be the very `_meta`, so such a result is not judged on it.
 */
function cutResults(ctx: Context): Set<string> {
  const cut = new Set<string>();
  for (const [taskId, normalised] of ctx.input.results)
    if (normalised.warnings.some((w) => w.code === 'bad-result')) cut.add(taskId);
  for (const answer of ctx.input.traffic) {
    if (answer.direction !== 'in' || answer.method !== 'tasks/result' || answer.requestSeq === undefined)
      continue;
    if (!isOmittedBody(answer.message)) continue;
    const request = ctx.bySeq.get(answer.requestSeq);
    const params =
      isObject(request?.message) && isObject(request.message.params) ? request.message.params : {};
    const taskId = taskIdOf(params);
    if (taskId) cut.add(taskId);
  }
  return cut;
}

/** How an exchange was answered, for an offence's words: its error code, or a result. */
const answeredWith = (x: Exchange): string => (x.error ? String(x.error.code) : 'with a result');

export function resultRelatedMeta(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  const seen = new Set<string>();
  const cut = cutResults(ctx);
  for (const x of exchanges(ctx, 'tasks/result')) {
    const taskId = taskIdOf(x.params);
    // The user documents' `{taskId, status, result}` envelope names its task itself.
    if (!x.result || !taskId || cut.has(taskId) || ('status' in x.result && !('content' in x.result)))
      continue;
    n++;
    seen.add(taskId);
    const meta = isObject(x.result._meta) ? x.result._meta[RELATED_TASK_META] : undefined;
    const named = isObject(meta) ? meta.taskId : undefined;
    if (named !== taskId)
      offences.push(
        wireOffence(
          x.answer,
          named === undefined
            ? 'tasks/result answer without related-task _meta'
            : `related-task names ${String(named).slice(0, 80)}`,
          taskId,
        ),
      );
  }
  // Results whose messages the log no longer has (or never kept: too big) are read from the result itself.
  for (const [taskId, normalised] of ctx.input.results) {
    const r = normalised.value;
    if (seen.has(taskId) || cut.has(taskId) || r.shape !== 'plain' || !r.result) continue;
    n++;
    const meta = isObject(r.result._meta) ? r.result._meta[RELATED_TASK_META] : undefined;
    if (!isObject(meta) || meta.taskId !== taskId) {
      const at = ctx.tasks
        .find((t) => t.task.taskId === taskId)
        ?.task.entries.find((e) => e.kind === 'result')?.at;
      offences.push(
        offence(taskId, at ?? ctx.input.now, 'result without related-task _meta naming its task'),
      );
    }
  }
  return {
    id: 'result-related-meta',
    observations: n,
    offences,
    passReason: `${count(n, 'tasks/result answer')}, each naming its task in _meta.`,
    brokenReason: (k) => `${k} of ${n} tasks/result answers did not name their task in related-task _meta.`,
    unobservedReason: 'No tasks/result answered yet.',
  };
}

export function unknownTaskError(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  const methods = ctx.era === '2026-07-28' ? ['tasks/get'] : ['tasks/get', 'tasks/result', 'tasks/cancel'];
  const lifecycle = new Map(ctx.tasks.map(({ task }) => [task.taskId, task.lifecycle]));
  for (const method of methods)
    for (const x of exchanges(ctx, method)) {
      if (!x.error) continue;
      const code = x.error.code;
      // The method itself refused is the capability rules' business.
      if (code === METHOD_NOT_FOUND) continue;
      // tasks/result of a failed task is the underlying call's error as is (2025-11-25): evidence of an
      // unknown task only for an id the tracker never knew or saw end purged or unknown.
      if (method === 'tasks/result') {
        const known = lifecycle.get(taskIdOf(x.params) ?? '');
        if (known !== undefined && known !== 'purged' && known !== 'unknown') continue;
      }
      const notFound =
        code === INVALID_PARAMS ? /./.test(x.error.message) : NOT_FOUND_WORDS.test(x.error.message);
      if (!notFound) continue;
      n++;
      if (code !== INVALID_PARAMS)
        offences.push(
          wireOffence(
            x.answer,
            `${method}: "${x.error.message.slice(0, 80)}" with code ${String(code)}`,
            taskIdOf(x.params),
          ),
        );
    }
  return {
    id: 'unknown-task-error',
    observations: n,
    offences,
    passReason: `${count(n, 'unknown or expired task')} answered -32602.`,
    brokenReason: (k) =>
      `${count(k, 'answer')} about a task the receiver did not have used another code than -32602.`,
    unobservedReason: 'No question about an unknown or expired task yet.',
  };
}

/** An answer the rules can read: a JSON-RPC error, or a result object (never an empty or odd body). */
const judgeable = (x: Exchange) => x.error !== undefined || x.result !== undefined;

const toolNamed = (ctx: Context, params: Record<string, unknown>) =>
  typeof params.name === 'string' ? ctx.input.tools.find((t) => t.name === params.name) : undefined;
const isCreateTaskResult = (result: Record<string, unknown> | undefined) =>
  result !== undefined && (isObject(result.task) || result.resultType === 'task');

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
      if (isCreateTaskResult(x.result))
        offences.push(
          wireOffence(x.answer, `${tool.name}: a task although tools/call tasks are not declared`),
        );
      continue;
    }
    if (tool.taskSupport === 'required' && !asTask) {
      if (!judgeable(x)) continue;
      n++;
      if (x.error?.code !== METHOD_NOT_FOUND)
        offences.push(
          wireOffence(
            x.answer,
            `plain call of ${tool.name} (taskSupport required) answered ${answeredWith(x)}`,
          ),
        );
    } else if (asTask && tool.taskSupport !== 'forbidden') {
      n++;
      if (x.result && !isCreateTaskResult(x.result))
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

export function rateLimitRetryAfter(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  for (const { task } of ctx.tasks)
    for (const e of task.entries) {
      if (e.kind !== 'error' || e.error.kind !== 'rate-limited') continue;
      n++;
      if (e.error.retryAfterMs === undefined)
        offences.push(
          offence(
            task.taskId,
            e.at,
            `rate limited (${e.error.httpStatus ?? e.error.code ?? '?'}) with no Retry-After`,
          ),
        );
    }
  return {
    id: 'rate-limit-retry-after',
    observations: n,
    offences,
    passReason: `${count(n, 'rate limit')}, each saying when to retry.`,
    brokenReason: (k) => `${k} of ${n} rate limits gave no Retry-After: Taskscope backs off on its own.`,
    unobservedReason: 'No rate limit met.',
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

/** 2026-07-28: failed tasks/get answers must carry `error`; per task, the first answer without (null: had it). */
export function failedErrorField(ctx: Context): Map<string, Found | null> {
  const out = new Map<string, Found | null>();
  for (const x of exchanges(ctx, 'tasks/get')) {
    const taskId = taskIdOf(x.params);
    if (!taskId || x.result?.status !== 'failed' || out.get(taskId)) continue;
    out.set(
      taskId,
      isObject(x.result.error) ? null : wireOffence(x.answer, 'failed without the error field', taskId),
    );
  }
  return out;
}

/** Cancels of tasks already seen ended, whoever sent them: must be refused with -32602. */
export function terminalCancelRefused(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  const endedAt = new Map<string, { at: number; status: string }>();
  for (const { task, obs } of ctx.tasks) {
    const ended = obs.find((o) => answered(o) && isTerminal(o.status) && o.source !== 'cancel');
    if (ended?.status) endedAt.set(task.taskId, { at: ended.at, status: ended.status });
  }
  for (const x of exchanges(ctx, 'tasks/cancel')) {
    const taskId = taskIdOf(x.params);
    const ended = taskId === undefined ? undefined : endedAt.get(taskId);
    // A refusal of the method itself is capability-tasks-cancel's business.
    if (!ended || x.request.wallTime < ended.at || x.error?.code === METHOD_NOT_FOUND || !judgeable(x))
      continue;
    n++;
    if (x.error?.code !== INVALID_PARAMS)
      offences.push(
        wireOffence(
          x.answer,
          `cancel of a ${ended.status} task ${x.error ? `refused with ${String(x.error.code)}` : 'answered as if it worked'}`,
          taskId,
        ),
      );
  }
  return {
    id: 'terminal-cancel-refused',
    observations: n,
    offences,
    passReason: `${count(n, 'cancel')} of ended tasks, each refused with -32602.`,
    brokenReason: (k) => `${count(k, 'cancel')} of ended tasks ${was(k)} not refused with -32602.`,
    unobservedReason: 'No cancel of an ended task seen.',
  };
}
