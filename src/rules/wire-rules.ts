/**
 * Rules judged from the raw messages in the traffic log: error codes, `_meta`, what a call was answered with.
 * Whoever sent the question (the tracker, a person, the active check), the receiver's answer counts.
 */
import { RELATED_TASK_META, isObject, isOmittedBody, isTerminal } from '../mcp';
import {
  answered,
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

/**
 * Only tools/call may be answered with a task (both generations): any other request answered with one is the
 * receiver's fault (the user documents' resources/read task included). On 2025-11-25 the tasks/* methods are
 * left out: their answers are about a task by design, and the user documents' tasks/get wraps it as `{task}`.
 */
export function taskOnlyForToolsCall(ctx: Context): Judgement {
  let n = 0;
  const offences: Found[] = [];
  const methods = new Set<string>();
  for (const event of ctx.input.traffic)
    if (event.direction === 'in' && event.method !== undefined && event.requestSeq !== undefined)
      methods.add(event.method);
  methods.delete('tools/call');
  for (const method of methods) {
    if (ctx.era === '2025-11-25' && method.startsWith('tasks/')) continue;
    for (const x of exchanges(ctx, method)) {
      if (!x.result) continue;
      n++;
      const taskId = taskAnswerId(x.result, ctx.era);
      if (taskId === undefined) continue;
      const named = taskId ? ` ${taskId.slice(0, 80)}` : '';
      offences.push(wireOffence(x.answer, `${method.slice(0, 80)} answered with task${named}`));
    }
  }
  return {
    id: 'task-only-for-tools-call',
    observations: n,
    offences,
    passReason: `${count(n, 'answer')} to requests other than tools/call, none of them a task.`,
    brokenReason: (k) => `${count(k, 'request')} other than tools/call ${was(k)} answered with a task.`,
    unobservedReason: 'No answer to a request other than tools/call seen yet.',
  };
}
