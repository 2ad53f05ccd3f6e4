/**
 * A recorded trace served as a live 2025-11-25 receiver (Streamable HTTP, JSON answers, no session): a
 * `tools/call` of a recorded tool starts a task that goes through the statuses the recording observed, at the
 * recorded pace (or `speed` times faster), and answers tasks/get, tasks/result, tasks/list and tasks/cancel
 * from them. Anything else gets a JSON-RPC error saying what the recording holds.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { refusal } from '../../devserver/guard';
import type { Trace, TraceTask } from '../../engine/trace/trace-types';

type Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);
const RELATED = 'io.modelcontextprotocol/related-task';
const BODY_LIMIT = 1024 * 1024;
const MAX_LIVE = 1000;

interface Step {
  offsetMs: number;
  status: Status;
  statusMessage?: string;
}

interface LiveTask {
  taskId: string;
  recorded: TraceTask;
  steps: Step[];
  startedAt: number;
  createdAt: string;
  cancelledAt?: number;
}

export interface RecordedReceiverOptions {
  speed: number;
  allowedHosts?: readonly string[];
}

/** The observed statuses of a recorded task, as offsets from its first observation. */
export function stepsOf(task: TraceTask): Step[] {
  const observations = task.entries.flatMap((e) =>
    e.kind === 'observation' && e.status !== null ? [e] : [],
  );
  const first = observations[0]?.at ?? task.firstSeenAt;
  const steps: Step[] = [];
  for (const o of observations) {
    const last = steps.at(-1);
    if (last && last.status === o.status && last.statusMessage === o.statusMessage) continue;
    steps.push({
      offsetMs: Math.max(0, o.at - first),
      status: o.status as Status,
      statusMessage: o.statusMessage,
    });
    if (TERMINAL.has(o.status as string)) break;
  }
  if (steps.length === 0) steps.push({ offsetMs: 0, status: 'working' });
  return steps;
}

export function createRecordedReceiver(trace: Trace, options: RecordedReceiverOptions) {
  const byTool = new Map<string, TraceTask[]>();
  for (const task of trace.tasks) {
    if (!task.tool) continue;
    byTool.set(task.tool, [...(byTool.get(task.tool) ?? []), task]);
  }
  const turn = new Map<string, number>();
  const live = new Map<string, LiveTask>();
  const tools = trace.tools.filter((t) => byTool.has(t.name));
  const holds = () =>
    `This recording holds the tools ${tools.map((t) => t.name).join(', ') || '(none)'} (run as tasks), and answers initialize, tools/list, tools/call, tasks/get, tasks/result, tasks/list and tasks/cancel.`;

  const stepAt = (task: LiveTask, now: number): Step => {
    if (task.cancelledAt !== undefined && now >= task.cancelledAt)
      return { offsetMs: 0, status: 'cancelled', statusMessage: 'Cancelled' };
    const elapsed = (now - task.startedAt) * options.speed;
    let current: Step = task.steps[0] ?? { offsetMs: 0, status: 'working' };
    for (const step of task.steps) if (step.offsetMs <= elapsed) current = step;
    return current;
  };
  const wire = (task: LiveTask, now = Date.now()) => {
    const step = stepAt(task, now);
    const snapshot = task.recorded.snapshot;
    return {
      taskId: task.taskId,
      status: step.status,
      ...(step.statusMessage !== undefined ? { statusMessage: step.statusMessage } : {}),
      createdAt: task.createdAt,
      lastUpdatedAt: new Date(task.startedAt + step.offsetMs / options.speed).toISOString(),
      ttl: typeof snapshot?.ttl === 'number' || snapshot?.ttl === null ? snapshot.ttl : 600_000,
      pollInterval: Math.max(100, Math.round((snapshot?.pollInterval ?? 1000) / options.speed)),
    };
  };
  /** When the task reaches its terminal step, local ms; undefined if the recording never ended it. */
  const endsAt = (task: LiveTask): number | undefined => {
    if (task.cancelledAt !== undefined) return task.cancelledAt;
    const last = task.steps.at(-1);
    return last && TERMINAL.has(last.status) ? task.startedAt + last.offsetMs / options.speed : undefined;
  };

  const methods: Record<string, (params: Record<string, unknown>) => Promise<unknown> | unknown> = {
    initialize: () => ({
      protocolVersion: '2025-11-25',
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      serverInfo: {
        name: `${trace.receiver.server?.name ?? 'receiver'} (recorded, taskscope serve)`,
        version: trace.receiver.server?.version ?? '0',
      },
    }),
    ping: () => ({}),
    'tools/list': () => ({
      tools: tools.map((t) => ({
        name: t.name,
        ...(t.title ? { title: t.title } : {}),
        ...(t.description ? { description: t.description } : {}),
        inputSchema: t.inputSchema,
        execution: { taskSupport: 'required' },
      })),
    }),
    'tools/call': (params) => {
      const name = String(params.name ?? '');
      const recorded = byTool.get(name);
      if (!recorded) throw rpc(-32602, `Unknown tool ${name.slice(0, 100)}. ${holds()}`);
      if (typeof params.task !== 'object' || params.task === null)
        throw rpc(-32601, `${name} was recorded as a task only: call it with a task. ${holds()}`);
      if (live.size >= MAX_LIVE) throw rpc(-32603, `Too many tasks (${MAX_LIVE})`);
      const index = turn.get(name) ?? 0;
      turn.set(name, index + 1);
      const source = recorded[index % recorded.length];
      if (!source) throw rpc(-32602, `Unknown tool ${name.slice(0, 100)}. ${holds()}`);
      const now = Date.now();
      const task: LiveTask = {
        taskId: randomUUID(),
        recorded: source,
        steps: stepsOf(source),
        startedAt: now,
        createdAt: new Date(now).toISOString(),
      };
      live.set(task.taskId, task);
      return { task: wire(task, now) };
    },
    'tasks/get': (params) => wire(known(params)),
    'tasks/list': () => ({ tasks: [...live.values()].map((t) => wire(t)) }),
    'tasks/cancel': (params) => {
      const task = known(params);
      if (TERMINAL.has(stepAt(task, Date.now()).status))
        throw rpc(-32602, `Task ${task.taskId} has already ended: it cannot be cancelled`);
      task.cancelledAt = Date.now();
      return wire(task);
    },
    'tasks/result': async (params) => {
      const task = known(params);
      const end = endsAt(task);
      if (end === undefined) throw rpc(-32603, 'The recording never saw this task end: it has no result');
      // Blocks until the task ends, as 2025-11-25 asks of tasks/result on a running task.
      if (end > Date.now()) await new Promise((r) => setTimeout(r, end - Date.now()));
      const status = stepAt(task, Date.now()).status;
      const result = task.recorded.result?.value.result;
      if (status === 'cancelled' && task.cancelledAt !== undefined)
        return { content: [{ type: 'text', text: 'Cancelled' }], isError: true, _meta: related(task) };
      if (!result) throw rpc(-32603, 'The recording holds no result for this task');
      const { _meta: meta, ...rest } = result as { _meta?: Record<string, unknown> };
      return { ...rest, _meta: { ...(meta ?? {}), ...related(task) } };
    },
  };
  const related = (task: LiveTask) => ({ [RELATED]: { taskId: task.taskId } });
  const known = (params: Record<string, unknown>): LiveTask => {
    const task = live.get(String(params.taskId ?? ''));
    if (!task) throw rpc(-32602, `Unknown task id. Tasks exist here only once a tools/call started them.`);
    return task;
  };

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = refusal(req.headers, { allowedHosts: options.allowedHosts ?? [], pages: 'local' });
    if (refused) return send(res, 403, { error: `Forbidden: ${refused.message}` });
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (error) {
      return send(res, 400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: (error as Error).message },
      });
    }
    const message = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const id = message.id;
    if (id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const method = String(message.method ?? '');
    const params = (
      typeof message.params === 'object' && message.params !== null ? message.params : {}
    ) as Record<string, unknown>;
    const handler = methods[method];
    try {
      if (!handler) throw rpc(-32601, `Method not found: ${method.slice(0, 100)}. ${holds()}`);
      send(res, 200, { jsonrpc: '2.0', id, result: await handler(params) });
    } catch (error) {
      const coded = error instanceof RpcError ? error : rpc(-32603, 'Internal error');
      send(res, 200, { jsonrpc: '2.0', id, error: { code: coded.code, message: coded.message } });
    }
  };
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
const rpc = (code: number, message: string) => new RpcError(code, message);

function send(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        reject(new Error('Request body too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
