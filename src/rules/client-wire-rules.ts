/**
 * The client rules on what a client's requests carry: the capabilities the receiver declared and each tool's
 * taskSupport (2025-11-25), and on 2026-07-28 the tasks extension, the routing headers, the protocol envelope,
 * the generation's own task methods and inputs answered once.
 */
import { decodeHeaderValue, isObject, TASKS_EXTENSION } from '../mcp';
import { headerOf, META_PROTOCOL_VERSION, type ClientRequest, type ClientSession } from './client-evidence';
import { has, judgement, offence, plural, type ClientJudgement } from './client-judgement';
import type { Found } from './evidence';

const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

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
