/**
 * The client rules' judges: each reads one client session (client-evidence.ts) and returns how many times the
 * rule could be judged and the offences among them. Times are compared as they passed the proxy, which sees an
 * answer the moment the client is sent it; a few ms of slack absorb the hop.
 */
import { isObject, isTerminal, TASKS_EXTENSION, type TaskStatus } from '../mcp';
import type { ClientRuleId } from './client-catalogue';
import {
  headerOf,
  META_PROTOCOL_VERSION,
  statusKnownAt,
  type ClientRequest,
  type ClientSession,
} from './client-evidence';
import type { Found } from './evidence';

export interface ClientJudgement {
  id: ClientRuleId;
  observations: number;
  offences: Found[];
  passReason: string;
  brokenReason: (count: number) => string;
  unobservedReason?: string;
}

/** What the proxy's hop and a client's timer may take off an interval without it being early. */
const SLACK_MS = 20;
const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

const offence = (request: { wallTime: number }, taskId: string | undefined, detail: string): Found => ({
  ...(taskId !== undefined ? { taskId } : {}),
  at: request.wallTime,
  when: request.wallTime,
  detail,
});

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const ms = (value: number) => `${Math.round(value)} ms`;

function judgement(
  id: ClientRuleId,
  observations: number,
  offences: Found[],
  passReason: string,
  brokenReason: (count: number) => string,
  unobservedReason?: string,
): ClientJudgement {
  return {
    id,
    observations,
    offences,
    passReason,
    brokenReason,
    ...(unobservedReason ? { unobservedReason } : {}),
  };
}

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

const has = (obj: unknown, ...path: string[]): boolean => {
  let at: unknown = obj;
  for (const key of path) {
    if (!isObject(at) || !(key in at)) return false;
    at = at[key];
  }
  return true;
};

export function capabilityRespected(s: ClientSession): ClientJudgement {
  const caps = s.serverCapabilities;
  if (!caps)
    return judgement(
      'client-capability-respected',
      0,
      [],
      '',
      () => '',
      "The session's initialize was not seen: the receiver's capabilities are unknown.",
    );
  let judged = 0;
  const offences: Found[] = [];
  const need: Record<string, string[]> = {
    'tasks/get': ['tasks'],
    'tasks/result': ['tasks'],
    'tasks/list': ['tasks', 'list'],
    'tasks/cancel': ['tasks', 'cancel'],
  };
  for (const r of s.requests) {
    const path =
      r.method === 'tools/call' && isObject(r.params.task)
        ? ['tasks', 'requests', 'tools', 'call']
        : need[r.method];
    if (!path) continue;
    judged++;
    if (!has(caps, ...path)) {
      const taskId = typeof r.params.taskId === 'string' ? r.params.taskId : undefined;
      const what = r.method === 'tools/call' ? 'a task-augmented tools/call' : r.method;
      offences.push(offence(r, taskId, `${what} though the receiver did not declare ${path.join('.')}`));
    }
  }
  return judgement(
    'client-capability-respected',
    judged,
    offences,
    `${plural(judged, 'task request')}, each one the receiver declared.`,
    (n) => `${plural(n, 'request')} used a task feature the receiver did not declare.`,
    'No task request seen.',
  );
}

export function toolTaskSupport(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  for (const r of s.requests) {
    if (r.method !== 'tools/call' || typeof r.params.name !== 'string') continue;
    const support = s.taskSupport.get(r.params.name);
    if (support === undefined) continue;
    judged++;
    const asTask = isObject(r.params.task);
    if (asTask && support === 'forbidden')
      offences.push(offence(r, undefined, `${r.params.name} called as a task; its taskSupport forbids it`));
    else if (!asTask && support === 'required')
      offences.push(
        offence(r, undefined, `${r.params.name} called without task; its taskSupport requires one`),
      );
  }
  return judgement(
    'client-tool-task-support',
    judged,
    offences,
    `${plural(judged, 'tool call')}, each as its tool's taskSupport asks.`,
    (n) => `${plural(n, 'tool call')} went against the tool's taskSupport.`,
    'No call of a tool whose taskSupport was seen in tools/list.',
  );
}

const TASK_REQUESTS_2026 = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

export function extensionDeclared(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  for (const r of s.requests) {
    if (!TASK_REQUESTS_2026.has(r.method)) continue;
    judged++;
    if (!has(r.params, '_meta', META_CLIENT_CAPABILITIES, 'extensions', TASKS_EXTENSION))
      offences.push(
        offence(
          r,
          typeof r.params.taskId === 'string' ? r.params.taskId : undefined,
          `${r.method} without the ${TASKS_EXTENSION} extension in its client capabilities`,
        ),
      );
  }
  return judgement(
    'client-extension-declared',
    judged,
    offences,
    `${plural(judged, 'task request')}, each declaring the tasks extension.`,
    (n) => `${plural(n, 'task request')} did not declare the tasks extension.`,
    'No tasks/get, tasks/update or tasks/cancel seen.',
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

/** A header value as the transport spec has it: base64 in a `=?base64?…?=` sentinel, else as is. */
export function decodeHeaderValue(value: string): string | undefined {
  const sentinel = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value.trim());
  if (!sentinel) return value.trim();
  try {
    const binary = atob(sentinel[1] ?? '');
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

const overHttp = (r: ClientRequest) => r.headers !== undefined;

export function mcpName(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  for (const r of s.requests) {
    if (!TASK_REQUESTS_2026.has(r.method) || !overHttp(r)) continue;
    const taskId = typeof r.params.taskId === 'string' ? r.params.taskId : undefined;
    judged++;
    const raw = headerOf(r.headers, 'mcp-name');
    if (raw === undefined) offences.push(offence(r, taskId, `${r.method} without an Mcp-Name header`));
    else if (decodeHeaderValue(raw) !== taskId)
      offences.push(
        offence(
          r,
          taskId,
          `${r.method} with Mcp-Name ${JSON.stringify(raw.slice(0, 80))}, not the taskId it asks about`,
        ),
      );
  }
  return judgement(
    'client-mcp-name',
    judged,
    offences,
    `${plural(judged, 'task request')}, each naming its task in Mcp-Name.`,
    (n) => `${plural(n, 'task request')} lacked an Mcp-Name naming the task.`,
    'No task request over HTTP seen.',
  );
}

export function mcpMethod(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  for (const r of s.requests) {
    if (!overHttp(r)) continue;
    judged++;
    const raw = headerOf(r.headers, 'mcp-method');
    if (raw === undefined) offences.push(offence(r, undefined, `${r.method} without an Mcp-Method header`));
    else if (decodeHeaderValue(raw) !== r.method)
      offences.push(offence(r, undefined, `${r.method} with Mcp-Method ${JSON.stringify(raw.slice(0, 80))}`));
  }
  return judgement(
    'client-mcp-method',
    judged,
    offences,
    `${plural(judged, 'request')}, each naming its method in Mcp-Method.`,
    (n) => `${plural(n, 'request')} lacked an Mcp-Method naming the method.`,
    'No request over HTTP seen.',
  );
}

export function protocolVersion(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  for (const r of s.requests) {
    judged++;
    const missing: string[] = [];
    if (overHttp(r) && headerOf(r.headers, 'mcp-protocol-version') === undefined)
      missing.push('the MCP-Protocol-Version header');
    if (!has(r.params, '_meta', META_PROTOCOL_VERSION)) missing.push(`_meta ${META_PROTOCOL_VERSION}`);
    if (!has(r.params, '_meta', META_CLIENT_CAPABILITIES)) missing.push(`_meta ${META_CLIENT_CAPABILITIES}`);
    if (missing.length > 0) offences.push(offence(r, undefined, `${r.method} without ${missing.join(', ')}`));
  }
  return judgement(
    'client-protocol-version',
    judged,
    offences,
    `${plural(judged, 'request')}, each naming its protocol version and client capabilities.`,
    (n) => `${plural(n, 'request')} lacked its protocol version or client capabilities.`,
    'No request seen.',
  );
}

export function no2025TaskMethods(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  const taskCalls = new Set<string>();
  for (const r of s.requests) {
    if (r.method === 'tools/call' && r.answer?.task) taskCalls.add(`${typeof r.id}:${String(r.id)}`);
    if (!r.method.startsWith('tasks/')) continue;
    judged++;
    if (r.method === 'tasks/result' || r.method === 'tasks/list')
      offences.push(
        offence(
          r,
          typeof r.params.taskId === 'string' ? r.params.taskId : undefined,
          `${r.method}, which 2026-07-28 does not have`,
        ),
      );
  }
  for (const n of s.notifications) {
    if (n.method !== 'notifications/cancelled') continue;
    const requestId = n.params.requestId;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') continue;
    judged++;
    if (taskCalls.has(`${typeof requestId}:${String(requestId)}`))
      offences.push(
        offence(
          n,
          undefined,
          'notifications/cancelled for a call that became a task (tasks/cancel cancels a task)',
        ),
      );
  }
  return judgement(
    'client-no-2025-task-methods',
    judged,
    offences,
    `${plural(judged, 'task request')}, all of 2026-07-28.`,
    (n) => `${plural(n, 'request')} used a 2025-11-25 task method.`,
    'No task request seen.',
  );
}

export function taskParamIgnored(s: ClientSession): ClientJudgement {
  const calls = s.requests.filter((r) => r.method === 'tools/call');
  const offences = calls
    .filter((r) => isObject(r.params.task))
    .map((r) => offence(r, undefined, 'tools/call with a task parameter: 2026-07-28 servers ignore it'));
  return judgement(
    'client-task-param-ignored',
    calls.length,
    offences,
    `${plural(calls.length, 'tool call')}, none with a task parameter.`,
    (n) => `${plural(n, 'tool call')} sent a task parameter, which the server ignores.`,
    'No tool call seen.',
  );
}

export function inputAnsweredOnce(s: ClientSession): ClientJudgement {
  let judged = 0;
  const offences: Found[] = [];
  for (const [taskId, list] of s.byTask) {
    const acknowledged = new Map<string, number>();
    for (const r of list) {
      if (r.method !== 'tasks/update' || !isObject(r.params.inputResponses)) continue;
      const keys = Object.keys(r.params.inputResponses);
      judged += keys.length;
      const again = keys.find((k) => (acknowledged.get(k) ?? Infinity) < r.at);
      if (again !== undefined)
        offences.push(
          offence(
            r,
            taskId,
            `input ${JSON.stringify(again.slice(0, 80))} answered again after its answer was acknowledged`,
          ),
        );
      if (r.answer && !r.answer.error)
        for (const k of keys) if (!acknowledged.has(k)) acknowledged.set(k, r.answer.at);
    }
  }
  return judgement(
    'client-input-answered-once',
    judged,
    offences,
    `${plural(judged, 'input answer')}, each key answered once.`,
    (n) => `${plural(n, 'tasks/update')} answered an input again after it was acknowledged.`,
    'No tasks/update seen.',
  );
}
