/**
 * The **faults** case: a receiver whose tasks run, end, fail and expire as a well-behaved one's do, and that
 * breaks only the report-card rules it is told to, one fault per rule. Served at the demo receiver's own URL
 * with `?faults=a,b` (or `npm run receiver -- --faults=a,b`), and at `/faults/mcp?faults=a,b` on the test-only
 * hostile receiver. Without faults it follows every rule the card judges.
 *
 * Tasks have no timers: each answer works out the task's state from its plan and the time, so nothing runs
 * once nobody asks. Status pushes ride on the GET stream, checked on a tick that ends with the stream.
 */
import { randomBytes } from 'node:crypto';
import {
  type CaseSpec,
  type CaseState,
  Held,
  isRecord,
  PAGE_SIZE,
  relatedMeta,
  result,
  type Rpc,
  rpcError,
  sendJson,
  sseMessage,
  TERMINAL,
  type TaskStatus,
  type WireTask,
} from './wire.js';

export const FAULT_DESCRIPTIONS = {
  'no-poll-interval': 'tasks carry no pollInterval (poll-interval-present: info)',
  'jumpy-poll-interval': 'pollInterval changes on every answer (poll-interval-stable: info)',
  'no-ttl': 'tasks/get answers carry no ttl (ttl-present: fail)',
  'purge-early':
    'tasks vanish (-32602) half way through their run, while still working, long before their ttl (ttl-not-purged-early: fail)',
  'keep-beyond-ttl': 'ended tasks are never purged (ttl-not-kept-beyond: warn)',
  'terminal-changes': 'an ended task reads "working" again 300 ms later (status-transitions: fail)',
  'created-at-moves': 'createdAt is the time of each answer (created-at-fixed: fail)',
  'updated-goes-back':
    'lastUpdatedAt goes one second further back on every answer (last-updated-monotonic: fail)',
  'future-updated': 'every second task has lastUpdatedAt an hour ahead (timestamps-not-future: fail)',
  'early-result': 'tasks/result on a running task answers at once (result-after-terminal: fail)',
  'no-related-meta': 'tasks/result answers without related-task _meta (result-related-meta: fail)',
  'unexplained-failure':
    'failed tasks give no statusMessage and no error text (failed-result-explains: warn)',
  'contradicting-push': 'pushes "completed" for a task that is still working (pushes-consistent: fail)',
  'no-pushes': 'sends no status notifications (pushes-sent: info)',
  'wrong-unknown-code': 'an unknown task id gets -32603 "Task not found" (unknown-task-error: fail)',
  'forbidden-tool-runs':
    'the taskSupport-forbidden tool `quick` runs as a task when asked (capability-absent-error: warn)',
  'rate-limit-no-retry-after':
    'every third tasks/get gets HTTP 429 without Retry-After (rate-limit-retry-after: info)',
  'list-refused': 'tasks/list is declared but answers -32601 (capability-tasks-list: fail)',
  'bogus-cursor-accepted':
    'tasks/list answers a cursor it never issued with the first page, not -32602 (list-paging: fail)',
  'undeclared-list-answered':
    'tasks.list is not declared, yet tasks/list answers a page, not -32601 (undeclared-method-refused: info)',
  'cancel-refused': 'tasks/cancel is declared but answers -32601 (capability-tasks-cancel: fail)',
  'required-runs-plain':
    'a plain call of the task-required tool `job` is run and answered (tool-task-support: fail)',
  'terminal-cancel-accepted':
    'a cancel of an ended task is answered with the task (terminal-cancel-refused: fail)',
  'ttl-overridden': 'the ttl asked for is doubled (requested-ttl-honoured: info)',
} as const;

/**
 * The report-card rule each fault breaks, and only that one: the fault matrix (test/integration/fault-matrix)
 * holds every fault to it, with the verdict the rule's strength sets.
 */
export const FAULT_RULES: Record<keyof typeof FAULT_DESCRIPTIONS, string> = {
  'no-poll-interval': 'poll-interval-present',
  'jumpy-poll-interval': 'poll-interval-stable',
  'no-ttl': 'ttl-present',
  'purge-early': 'ttl-not-purged-early',
  'keep-beyond-ttl': 'ttl-not-kept-beyond',
  'terminal-changes': 'status-transitions',
  'created-at-moves': 'created-at-fixed',
  'updated-goes-back': 'last-updated-monotonic',
  'future-updated': 'timestamps-not-future',
  'early-result': 'result-after-terminal',
  'no-related-meta': 'result-related-meta',
  'unexplained-failure': 'failed-result-explains',
  'contradicting-push': 'pushes-consistent',
  'no-pushes': 'pushes-sent',
  'wrong-unknown-code': 'unknown-task-error',
  'forbidden-tool-runs': 'capability-absent-error',
  'rate-limit-no-retry-after': 'rate-limit-retry-after',
  'list-refused': 'capability-tasks-list',
  'bogus-cursor-accepted': 'list-paging',
  'undeclared-list-answered': 'undeclared-method-refused',
  'cancel-refused': 'capability-tasks-cancel',
  'required-runs-plain': 'tool-task-support',
  'terminal-cancel-accepted': 'terminal-cancel-refused',
  'ttl-overridden': 'requested-ttl-honoured',
};

export type FaultName = keyof typeof FAULT_DESCRIPTIONS;
export const FAULT_NAMES = Object.keys(FAULT_DESCRIPTIONS) as FaultName[];

/** Reads `a,b` into known fault names; unknown ones are returned apart so the caller can refuse them. */
export function parseFaults(text: string | undefined | null): { faults: FaultName[]; unknown: string[] } {
  const names = (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(0, 50);
  const known = new Set<string>(FAULT_NAMES);
  return {
    faults: [...new Set(names.filter((n): n is FaultName => known.has(n)))].sort(),
    unknown: names.filter((n) => !known.has(n)).map((n) => n.slice(0, 60)),
  };
}

const DEFAULT_TTL_MS = 60_000;
const DEFAULT_POLL_MS = 200;
const DEFAULT_DURATION_MS = 600;
const MAX_DURATION_MS = 10 * 60_000;
/** How long an input_required spell lasts before the task goes back to working on its own. */
const INPUT_FOR_MS = 300;
const PUSH_TICK_MS = 50;
const MAX_TASKS = 5_000;
const HOUR_MS = 60 * 60 * 1000;

interface Plan {
  taskId: string;
  n: number;
  createdAt: number;
  ttl: number;
  pollInterval: number;
  durationMs: number;
  outcome: 'completed' | 'failed';
  inputAfterMs?: number;
  cancelledAt?: number;
  answers: number;
}

const num = (v: unknown, fallback: number, max = MAX_DURATION_MS) =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.min(v, max) : fallback;

/** The faults case for one set of faults: its own tasks, tools and answers. */
export function faultSpec(faults: readonly FaultName[], registry: Set<Held>): CaseSpec {
  const on = new Set(faults);
  const plans = new Map<string, Plan>();
  const order: string[] = [];
  let created = 0;

  const statusAt = (p: Plan, now: number): { status: TaskStatus; since: number } => {
    const age = now - p.createdAt;
    const endsAt = p.createdAt + p.durationMs;
    if (p.cancelledAt !== undefined && p.cancelledAt < endsAt)
      return { status: 'cancelled', since: p.cancelledAt };
    if (age >= p.durationMs) {
      if (on.has('terminal-changes') && age >= p.durationMs + 300)
        return { status: 'working', since: endsAt + 300 };
      return { status: p.outcome, since: endsAt };
    }
    const inputAt = p.inputAfterMs === undefined ? undefined : p.createdAt + p.inputAfterMs;
    if (inputAt !== undefined && now >= inputAt) {
      if (now < inputAt + INPUT_FOR_MS) return { status: 'input_required', since: inputAt };
      return { status: 'working', since: inputAt + INPUT_FOR_MS };
    }
    return { status: 'working', since: p.createdAt };
  };

  const gone = (p: Plan, now: number): boolean => {
    if (on.has('purge-early')) return now >= p.createdAt + p.durationMs / 2;
    if (on.has('keep-beyond-ttl')) return false;
    return now >= p.createdAt + p.ttl;
  };

  /** The task as an answer gives it; `forGet`: a tasks/get answer (where ttl faults apply). */
  const view = (p: Plan, now: number, forGet = false): WireTask => {
    const { status, since } = statusAt(p, now);
    let updated = since;
    if (on.has('updated-goes-back')) updated = p.createdAt - p.answers * 1000;
    if (on.has('future-updated') && p.n % 2 === 0) updated = now + HOUR_MS;
    const task: WireTask = {
      taskId: p.taskId,
      status,
      createdAt: new Date(on.has('created-at-moves') ? now : p.createdAt).toISOString(),
      lastUpdatedAt: new Date(updated).toISOString(),
      ttl: p.ttl,
    };
    if (!on.has('no-poll-interval'))
      task.pollInterval = on.has('jumpy-poll-interval')
        ? [100, 700, 150, 900][p.answers % 4]
        : p.pollInterval;
    if (!on.has('unexplained-failure') || status !== 'failed')
      task.statusMessage = status === 'failed' ? 'The job failed: it was asked to fail' : `job is ${status}`;
    if (forGet && on.has('no-ttl')) delete (task as Partial<WireTask>).ttl;
    return task;
  };

  const find = (taskId: string, now = Date.now()): Plan | undefined => {
    const p = plans.get(taskId);
    return p && !gone(p, now) ? p : undefined;
  };

  const notFound = (rpc: Rpc) =>
    on.has('wrong-unknown-code')
      ? rpcError(rpc.res, rpc.id, -32603, 'Task not found')
      : rpcError(rpc.res, rpc.id, -32602, 'Task not found');

  const finalResult = (p: Plan, now: number) => {
    const failed = statusAt(p, now).status === 'failed';
    const text = failed
      ? on.has('unexplained-failure')
        ? ''
        : 'The job failed: it was asked to fail'
      : 'The job is done.';
    return {
      content: on.has('unexplained-failure') && failed ? [] : [{ type: 'text', text }],
      isError: failed,
      ...(on.has('no-related-meta') ? {} : { _meta: relatedMeta(p.taskId) }),
    };
  };

  const create = (rpc: Rpc, args: Record<string, unknown>, taskParams: Record<string, unknown>) => {
    if (plans.size >= MAX_TASKS) {
      const oldest = order.shift();
      if (oldest) plans.delete(oldest);
    }
    const asked = num(taskParams.ttl, DEFAULT_TTL_MS, 24 * HOUR_MS);
    const p: Plan = {
      taskId: `fault-${++created}-${randomBytes(4).toString('hex')}`,
      n: created,
      createdAt: Date.now(),
      ttl: on.has('ttl-overridden') ? asked * 2 : asked,
      pollInterval: num(args.pollInterval, DEFAULT_POLL_MS, 60_000) || DEFAULT_POLL_MS,
      durationMs: num(args.durationMs, DEFAULT_DURATION_MS),
      outcome: args.outcome === 'failed' ? 'failed' : 'completed',
      inputAfterMs: typeof args.inputAfterMs === 'number' ? num(args.inputAfterMs, 0) : undefined,
      answers: 0,
    };
    plans.set(p.taskId, p);
    order.push(p.taskId);
    result(rpc.res, rpc.id, { task: view(p, p.createdAt) });
  };

  let getCount = 0;

  return {
    ...(on.has('undeclared-list-answered')
      ? { tasksCapability: { cancel: {}, requests: { tools: { call: {} } } } }
      : {}),
    seed: () => [],
    tools: () => [
      {
        name: 'job',
        description:
          'A task that works for durationMs (600), may ask for input at inputAfterMs for 300 ms, then ends as outcome (completed or failed).',
        inputSchema: {
          type: 'object',
          properties: {
            durationMs: { type: 'number' },
            pollInterval: { type: 'number' },
            outcome: { type: 'string', enum: ['completed', 'failed'] },
            inputAfterMs: { type: 'number' },
          },
        },
        execution: { taskSupport: 'required' },
      },
      {
        name: 'quick',
        description: 'Answers at once; never a task.',
        inputSchema: { type: 'object', properties: {} },
        execution: { taskSupport: 'forbidden' },
        annotations: { readOnlyHint: true },
      },
    ],
    call: (rpc) => {
      const { params } = rpc;
      const args = isRecord(params.arguments) ? params.arguments : {};
      const asTask = isRecord(params.task) ? params.task : undefined;
      if (params.name === 'quick') {
        if (asTask && !on.has('forbidden-tool-runs'))
          return rpcError(rpc.res, rpc.id, -32601, 'Tool quick cannot run as a task');
        if (asTask) return create(rpc, { durationMs: 100 }, asTask);
        return result(rpc.res, rpc.id, { content: [{ type: 'text', text: 'quick answer' }] });
      }
      if (params.name !== 'job')
        return rpcError(rpc.res, rpc.id, -32602, `Unknown tool: ${String(params.name).slice(0, 100)}`);
      if (asTask) return create(rpc, args, asTask);
      if (on.has('required-runs-plain'))
        return result(rpc.res, rpc.id, { content: [{ type: 'text', text: 'ran without a task' }] });
      return rpcError(rpc.res, rpc.id, -32601, 'Tool job must be called as a task');
    },
    virtualTask: (_c, taskId) => {
      const p = find(taskId);
      return p ? view(p, Date.now()) : undefined;
    },
    get: (rpc) => {
      const taskId = String(rpc.params.taskId);
      if (on.has('rate-limit-no-retry-after') && ++getCount % 3 === 0)
        return sendJson(rpc.res, 429, {
          jsonrpc: '2.0',
          id: rpc.id,
          error: { code: -32000, message: 'Too Many Requests' },
        });
      const p = find(taskId);
      if (!p) return notFound(rpc);
      p.answers++;
      result(rpc.res, rpc.id, view(p, Date.now(), true));
    },
    result: (rpc) => {
      const p = find(String(rpc.params.taskId));
      if (!p) return (notFound(rpc), true);
      const now = Date.now();
      const { status } = statusAt(p, now);
      if (status === 'cancelled')
        return (rpcError(rpc.res, rpc.id, -32602, 'Task was cancelled: no result'), true);
      if (TERMINAL.has(status) || on.has('early-result'))
        return (result(rpc.res, rpc.id, finalResult(p, now)), true);
      // Block until the planned end (or the receiver closes): a timer held by this request only.
      const held = new Held(registry, rpc.c, rpc.res, undefined, rpc.id);
      held.every(PUSH_TICK_MS, () => {
        const at = Date.now();
        const s = statusAt(p, at).status;
        if (!TERMINAL.has(s)) return;
        if (s === 'cancelled')
          held.answer(200, {
            jsonrpc: '2.0',
            id: rpc.id,
            error: { code: -32602, message: 'Task was cancelled: no result' },
          });
        else held.answer(200, { jsonrpc: '2.0', id: rpc.id, result: finalResult(p, at) });
        return false;
      });
      return true;
    },
    cancel: (rpc) => {
      if (on.has('cancel-refused'))
        return rpcError(rpc.res, rpc.id, -32601, 'Method not found: tasks/cancel');
      const p = find(String(rpc.params.taskId));
      if (!p) return notFound(rpc);
      const now = Date.now();
      const { status } = statusAt(p, now);
      // terminal-changes only says working again; the task has ended all the same, and a cancel says so.
      const ended = TERMINAL.has(status) || now >= p.createdAt + p.durationMs;
      if (ended) {
        if (on.has('terminal-cancel-accepted')) return result(rpc.res, rpc.id, view(p, now));
        return rpcError(
          rpc.res,
          rpc.id,
          -32602,
          `Cannot cancel: already ${TERMINAL.has(status) ? status : p.outcome}`,
        );
      }
      p.cancelledAt = now;
      result(rpc.res, rpc.id, view(p, now));
    },
    list: (rpc, cursor) => {
      if (on.has('list-refused')) return rpcError(rpc.res, rpc.id, -32601, 'Method not found: tasks/list');
      const now = Date.now();
      const live = order.map((id) => find(id, now)).filter((p): p is Plan => p !== undefined);
      let offset = cursor === undefined ? 0 : Number(/^f(\d+)$/.exec(cursor)?.[1] ?? NaN);
      // The fault: a cursor it never handed out is taken as the start.
      if (!Number.isInteger(offset) && on.has('bogus-cursor-accepted')) offset = 0;
      if (!Number.isInteger(offset)) return rpcError(rpc.res, rpc.id, -32602, 'Invalid cursor');
      const tasks = live.slice(offset, offset + PAGE_SIZE).map((p) => view(p, now));
      const next = offset + PAGE_SIZE;
      result(rpc.res, rpc.id, next < live.length ? { tasks, nextCursor: `f${next}` } : { tasks });
    },
    onStreamOpen: (_c: CaseState, stream: Held) => {
      if (on.has('no-pushes')) return;
      const pushed = new Map<string, TaskStatus>();
      let event = 0;
      stream.every(PUSH_TICK_MS, () => {
        const now = Date.now();
        for (const id of order) {
          const p = find(id, now);
          if (!p) continue;
          let status = statusAt(p, now).status;
          // The lie: "completed" from half way through, while the job still works.
          if (on.has('contradicting-push') && status === 'working' && now - p.createdAt >= p.durationMs / 2)
            status = 'completed';
          const before = pushed.get(id);
          // Pushes tell only legal moves: what terminal-changes breaks is seen by asking, not pushed.
          if (before === status || (before !== undefined && TERMINAL.has(before))) continue;
          pushed.set(id, status);
          // The first sight of a task is its create answer's business, not a push's.
          if (before === undefined && status === 'working') continue;
          const params = { ...view(p, now), status };
          stream.write(
            sseMessage(`p${++event}`, { jsonrpc: '2.0', method: 'notifications/tasks/status', params }),
          );
        }
      });
    },
  };
}
