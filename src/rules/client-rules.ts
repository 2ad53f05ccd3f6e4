/**
 * The client rules on what a client does with each task: its poll cadence, stopping at a terminal status,
 * discarding a task the receiver calls gone, Retry-After, tasks/result once terminal, on input_required and
 * before the ttl. Times are compared as they passed the proxy, which sees an answer the moment the client is sent
 * it; a few ms of slack absorb the hop.
 */
import { isTerminal, type TaskStatus } from '../mcp';
import { statusKnownAt, type ClientRequest, type ClientSession } from './client-evidence';
import { judgement, ms, offence, plural, SLACK_MS, type ClientJudgement } from './client-judgement';
import type { Found } from './evidence';

const gets = (list: readonly ClientRequest[]) => list.filter((r) => r.method === 'tasks/get');

/** The latest answer to a tasks/get of this task that had reached the client before `at`. */
function lastPollAnswerBefore(list: readonly ClientRequest[], at: number): ClientRequest | undefined {
  let best: ClientRequest | undefined;
  let bestAt = -Infinity;
  for (const r of list)
    if (r.method === 'tasks/get' && r.answer && r.answer.at <= at && r.answer.at >= bestAt) {
      best = r;
      bestAt = r.answer.at;
    }
  return best;
}

export function pollCadence(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  for (const [taskId, list] of s.byTask)
    for (const poll of gets(list)) {
      const previous = lastPollAnswerBefore(list, poll.at);
      const interval = previous?.answer?.task?.pollInterval;
      if (!previous?.answer || interval === undefined) continue;
      judged++;
      const gap = poll.at - previous.answer.at;
      if (gap < interval - SLACK_MS)
        offences.push(
          offence(poll, taskId, `tasks/get ${ms(gap)} after an answer that asked for ${ms(interval)}`),
        );
    }
  return judgement(
    'client-poll-cadence',
    judged,
    offences,
    `${plural(judged, 'poll')} judged, none sooner than the pollInterval of the answer before it.`,
    (n) => `${plural(n, 'poll')} came sooner than the pollInterval the previous answer gave.`,
    'No second poll of a task with a pollInterval seen yet.',
  );
}

/** When the client was first told, in an answer to its own request, that the task had ended. */
function terminalToldAt(
  s: ClientSession,
  taskId: string,
  list: readonly ClientRequest[],
): number | undefined {
  let first: number | undefined;
  const consider = (request: ClientRequest) => {
    const status = request.answer?.task?.status;
    if (request.answer && isTerminal(status) && (first === undefined || request.answer.at < first))
      first = request.answer.at;
  };
  for (const r of list) {
    // On 2026-07-28 only a tasks/get answer carries the result; a terminal create or cancel answer still
    // needs the tasks/get that fetches it.
    if (r.method === 'tasks/get' || (s.era === '2025-11-25' && r.method === 'tasks/cancel')) consider(r);
  }
  const created = s.created.get(taskId);
  if (created && s.era === '2025-11-25') consider(created);
  return first;
}

export function stopsAtTerminal(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  for (const [taskId, list] of s.byTask) {
    const endedAt = terminalToldAt(s, taskId, list);
    if (endedAt === undefined) continue;
    judged++;
    const late = gets(list).find((r) => r.at > endedAt);
    if (late)
      offences.push(
        offence(late, taskId, `tasks/get ${ms(late.at - endedAt)} after an answer said the task had ended`),
      );
  }
  return judgement(
    'client-stops-at-terminal',
    judged,
    offences,
    `${plural(judged, 'task')} ended; polling stopped at the terminal answer each time.`,
    (n) => `${plural(n, 'task')} polled again after an answer said it had ended.`,
    'No task seen ending in an answer to the client.',
  );
}

/** The -32602 that says the task is gone: to tasks/get, or to a tasks/result not explained by a live task. */
function goneAt(s: ClientSession, taskId: string, list: readonly ClientRequest[]): number | undefined {
  for (const r of list) {
    if (r.answer?.error?.code !== -32602) continue;
    if (r.method === 'tasks/get') return r.answer.at;
    if (r.method === 'tasks/result') {
      const status = statusKnownAt(list, s.pushes, taskId, r.at, s.created.get(taskId));
      if (status === undefined || isTerminal(status)) return r.answer.at;
    }
  }
  return undefined;
}

export function discardsUnknownTask(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  for (const [taskId, list] of s.byTask) {
    const at = goneAt(s, taskId, list);
    if (at === undefined) continue;
    judged++;
    const again = list.find((r) => r.at > at && r.method !== 'tasks/cancel');
    if (again)
      offences.push(
        offence(
          again,
          taskId,
          `${again.method} ${ms(again.at - at)} after -32602 said the task is unknown or expired`,
        ),
      );
  }
  return judgement(
    'client-discards-unknown-task',
    judged,
    offences,
    `${plural(judged, 'task')} answered -32602; the client asked no more about ${judged === 1 ? 'it' : 'them'}.`,
    (n) =>
      `${plural(n, 'task')} asked about again after -32602 said ${n === 1 ? 'it was' : 'they were'} gone.`,
    'No task answered -32602 (unknown or expired).',
  );
}

export function resultAfterTerminal(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  for (const [taskId, list] of s.byTask)
    for (const r of list) {
      if (r.method !== 'tasks/result' || !r.answer) continue;
      const status = statusKnownAt(list, s.pushes, taskId, r.at, s.created.get(taskId));
      if (status === undefined) continue;
      judged++;
      // A receiver that blocks until the end answers an early call normally: only a refusal makes it a mistake.
      if (!isTerminal(status) && r.answer.error?.code === -32602)
        offences.push(
          offence(
            r,
            taskId,
            `tasks/result while the last status the client had was ${status}; the receiver refused it -32602`,
          ),
        );
    }
  return judgement(
    'client-result-after-terminal',
    judged,
    offences,
    `${plural(judged, 'tasks/result call')} judged; none refused for coming before the task ended.`,
    (n) => `${plural(n, 'tasks/result call')} came before the task had ended and were refused -32602.`,
    'No tasks/result call seen after a status.',
  );
}

const rateLimited = (r: ClientRequest) => r.answer?.httpStatus === 429 || r.answer?.error?.code === -32429;

export function retryAfter(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  s.requests.forEach((limited, i) => {
    const answer = limited.answer;
    if (!answer || !rateLimited(limited)) return;
    const taskId = typeof limited.params.taskId === 'string' ? limited.params.taskId : undefined;
    const sameWork = (r: ClientRequest) =>
      taskId !== undefined ? r.params.taskId === taskId : r.method === limited.method;
    const next = s.requests.slice(i + 1).find((r) => r.at > answer.at && sameWork(r));
    if (!next) return;
    const list = taskId !== undefined ? (s.byTask.get(taskId) ?? []) : [];
    const wait =
      answer.retryAfterMs ?? lastPollAnswerBefore(list, answer.at)?.answer?.task?.pollInterval ?? 1000;
    judged++;
    const gap = next.at - answer.at;
    if (gap < wait - SLACK_MS)
      offences.push(
        offence(next, taskId, `${next.method} ${ms(gap)} after a rate limit that asked for ${ms(wait)}`),
      );
  });
  return judgement(
    'client-retry-after',
    judged,
    offences,
    `${plural(judged, 'rate limit')} met; the client waited as asked each time.`,
    (n) => `${plural(n, 'request')} came sooner than a rate limit asked.`,
    'No rate limit (-32429 or HTTP 429) met.',
  );
}

/** When the client was first told the task completed, by any message; undefined if never. */
function completedAt(s: ClientSession, taskId: string, list: readonly ClientRequest[]): number | undefined {
  const times: number[] = [];
  for (const r of [...list, s.created.get(taskId)])
    if (r?.answer?.task?.status === 'completed') times.push(r.answer.at);
  for (const push of s.pushes)
    if (push.taskId === taskId && push.facts.status === 'completed') times.push(push.at);
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** When the client had the result in hand: its tasks/result answered, or (2026-07-28) an answer or push with it inline. */
function resultInHandAt(
  s: ClientSession,
  taskId: string,
  list: readonly ClientRequest[],
): number | undefined {
  const times: number[] = [];
  for (const r of list) {
    if (!r.answer || r.answer.error) continue;
    if (s.era === '2025-11-25' && r.method === 'tasks/result') times.push(r.answer.at);
    if (s.era === '2026-07-28' && r.answer.task?.status === 'completed' && r.answer.task.inlineOutcome)
      times.push(r.answer.at);
  }
  if (s.era === '2026-07-28')
    for (const push of s.pushes)
      if (push.taskId === taskId && push.facts.status === 'completed' && push.facts.inlineOutcome)
        times.push(push.at);
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** The ttl the client was last told and when the task's life started as the proxy saw it. */
function expiryOf(s: ClientSession, taskId: string, list: readonly ClientRequest[]): number | undefined {
  const created = s.created.get(taskId);
  let start = created?.answer?.at;
  let ttl: number | null | undefined;
  for (const r of [created, ...list])
    if (r?.answer?.task) {
      start ??= r.answer.at;
      if (r.answer.task.ttl !== undefined) ttl = r.answer.task.ttl;
    }
  return start !== undefined && typeof ttl === 'number' ? start + ttl : undefined;
}

export function resultFetched(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  for (const [taskId, list] of s.byTask) {
    const doneAt = completedAt(s, taskId, list);
    if (doneAt === undefined) continue;
    const inHand = resultInHandAt(s, taskId, list);
    const expiry = expiryOf(s, taskId, list);
    const gone = goneAt(s, taskId, list);
    const last = list[list.length - 1] ?? s.created.get(taskId);
    if (inHand !== undefined && (expiry === undefined || inHand <= expiry)) {
      judged++;
      continue;
    }
    if (inHand !== undefined || gone !== undefined || (expiry !== undefined && s.endAt >= expiry)) {
      judged++;
      if (last)
        offences.push(
          offence(
            last,
            taskId,
            inHand !== undefined
              ? 'the result was fetched only after the ttl ran out'
              : 'the task completed and its result was never fetched before the ttl ran out',
          ),
        );
    }
  }
  return judgement(
    'client-result-fetched',
    judged,
    offences,
    `${plural(judged, 'completed task')}, each result fetched before its ttl ran out.`,
    (n) =>
      `${plural(n, 'completed task')} lost ${n === 1 ? 'its' : 'their'} result: never fetched before the ttl ran out.`,
    'No completed task seen through to its result or its ttl.',
  );
}

export function resultPromptly(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  for (const [taskId, list] of s.byTask) {
    const told = list.find((r) => r.method === 'tasks/get' && r.answer?.task?.status === 'completed');
    const interval = told?.answer?.task?.pollInterval;
    if (!told?.answer || interval === undefined) continue;
    const toldAt = told.answer.at;
    const results = list.filter((r) => r.method === 'tasks/result');
    // A tasks/result already asked before the answer (a blocking one, or a retry) is prompt by definition.
    if (results.some((r) => r.at <= toldAt)) {
      judged++;
      continue;
    }
    const first = results.find((r) => r.at > toldAt);
    if (!first && s.endAt < toldAt + interval) continue;
    judged++;
    const wait = first ? first.at - toldAt : s.endAt - toldAt;
    if (wait > interval + SLACK_MS)
      offences.push(
        offence(
          first ?? told,
          taskId,
          first
            ? `tasks/result ${ms(wait)} after the answer that said completed (pollInterval ${ms(interval)})`
            : `no tasks/result in the ${ms(wait)} after the answer that said completed`,
        ),
      );
  }
  return judgement(
    'client-result-promptly',
    judged,
    offences,
    `${plural(judged, 'completed task')}: each result asked for within one pollInterval of the answer that said completed.`,
    (n) => `${plural(n, 'completed task')} waited longer than one pollInterval for tasks/result.`,
    'No completed status seen in a tasks/get answer with a pollInterval.',
  );
}

export function inputRequiredResult(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  for (const [taskId, list] of s.byTask) {
    const told: Array<{ at: number; wallTime: number; interval?: number; status?: TaskStatus }> = [];
    for (const r of [s.created.get(taskId), ...list])
      if (r?.answer?.task)
        told.push({
          at: r.answer.at,
          wallTime: r.wallTime,
          interval: r.answer.task.pollInterval,
          status: r.answer.task.status,
        });
    for (const p of s.pushes)
      if (p.taskId === taskId)
        told.push({ at: p.at, wallTime: p.wallTime, interval: p.facts.pollInterval, status: p.facts.status });
    told.sort((a, b) => a.at - b.at);
    let previous: TaskStatus | undefined;
    let interval: number | undefined;
    for (const t of told) {
      interval = t.interval ?? interval;
      const entered = t.status === 'input_required' && previous !== 'input_required';
      previous = t.status ?? previous;
      if (!entered || interval === undefined) continue;
      const results = list.filter((r) => r.method === 'tasks/result');
      // A tasks/result still waiting for its answer is where the receiver sends its question.
      const waiting = results.some((r) => r.at <= t.at && (!r.answer || r.answer.at >= t.at));
      const asked = results.find((r) => r.at >= t.at);
      if (!waiting && !asked && s.endAt < t.at + interval) continue;
      judged++;
      if (!waiting && (!asked || asked.at - t.at > interval + SLACK_MS))
        offences.push(
          offence(
            asked ?? t,
            taskId,
            asked
              ? `tasks/result ${ms(asked.at - t.at)} after input_required (pollInterval ${ms(interval)})`
              : 'input_required seen and no tasks/result followed within one pollInterval',
          ),
        );
    }
  }
  return judgement(
    'client-input-required-result',
    judged,
    offences,
    `${plural(judged, 'input_required status', 'input_required statuses')}, each followed by tasks/result within one pollInterval.`,
    (n) =>
      `${plural(n, 'input_required status', 'input_required statuses')} not followed by tasks/result within one pollInterval.`,
    'No input_required status seen.',
  );
}
