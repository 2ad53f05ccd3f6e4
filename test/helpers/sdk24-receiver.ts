/**
 * A small 2026-07-28 receiver written in the test on `@modelcontextprotocol/server` 2.4 alone: nothing of the
 * demo receiver (its store, tools, wire helpers or Express adapter), so the engine meets a receiver it was
 * not written alongside. Server 2.4 has no task runtime, so tasks/get, tasks/update and tasks/cancel are
 * registered here by hand, over a store of a few lines.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  CLIENT_CAPABILITIES_META_KEY,
  McpServer,
  ProtocolError,
  createMcpHandler,
  type CallToolResult,
  type McpServerFactory,
  type ServerContext,
} from '@modelcontextprotocol/server';

const EXTENSION = 'io.modelcontextprotocol/tasks';

type Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

interface Task {
  taskId: string;
  status: Status;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs: number;
  inputRequests?: Record<string, { method: 'elicitation/create'; params: Record<string, unknown> }>;
  result?: CallToolResult;
}

interface Entry {
  task: Task;
  served: Status[];
  timer?: NodeJS.Timeout;
  /** sleep_task's workingPolls: it completes at the tasks/get after that many have seen it working. */
  endAfterPolls?: { polls: number; end: () => void };
  /** The outstanding question's key and what to do with its answer. */
  pending?: { key: string; answer: (value: unknown) => void };
}

/** One request as it reached the receiver, before the SDK saw it. */
export interface Arrival {
  method: string;
  taskId?: string;
  at: number;
}

export interface Sdk24ReceiverOptions {
  /**
   * 'strict': `legacy: 'reject'`, 2026-07-28 only. 'dual': server 2.4's default, which also answers a
   * 2025-11-25 initialize (statelessly, with no tasks).
   */
  mode: 'strict' | 'dual';
  /**
   * Whether a completed task's inline result carries resultType "complete". ext-tasks' client requires it;
   * the extension spec's examples leave it out. Default true.
   */
  innerResultType?: boolean;
  /**
   * 'bare': the 2025-11-25 side keeps a v1 server's habits: it declares tasks for tools/call, lists
   * sleep_task as taskSupport "optional" and answers with a bare `{task}`, which server 2.4 then refuses.
   */
  legacyTasks?: 'none' | 'bare';
  /** Off: tasks/cancel is acknowledged and the task goes on, as the extension allows. Default true. */
  honourCancel?: boolean;
  /** sleep_task answers a 2026-07-28 task call with a v1 bare `{task}`, which server 2.4 refuses on the way out. */
  bareOn2026?: boolean;
}

export interface Sdk24Receiver {
  url: string;
  /** Every POST that reached the receiver, in order. */
  arrivals: Arrival[];
  /** The status each tasks/get for this task answered with, in order. */
  served: (taskId: string) => Status[];
  task: (taskId: string) => Task | undefined;
  close: () => Promise<void>;
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

const now = () => new Date().toISOString();

const declaresExtension = (ctx: ServerContext): boolean => {
  // The SDK types the envelope as an empty object: its keys are read as the wire has them.
  const envelope = ctx.mcpReq.envelope as
    Record<string, { extensions?: Record<string, unknown> }> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  return capabilities?.extensions?.[EXTENSION] !== undefined;
};

const Answer = z.object({ action: z.literal('accept'), content: z.object({ answer: z.string() }) });

export async function startSdk24Receiver(options: Sdk24ReceiverOptions): Promise<Sdk24Receiver> {
  const tasks = new Map<string, Entry>();
  const arrivals: Arrival[] = [];

  const update = (entry: Entry, change: Partial<Task>) => {
    entry.task = { ...entry.task, ...change, lastUpdatedAt: now() };
  };
  const finish = (entry: Entry, change: Partial<Task>) => {
    clearTimeout(entry.timer);
    entry.pending = undefined;
    const { inputRequests: _gone, ...task } = entry.task;
    entry.task = { ...task, ...change, lastUpdatedAt: now() };
  };
  const create = (pollIntervalMs: number): Entry => {
    const at = now();
    const entry: Entry = {
      task: {
        taskId: randomUUID(),
        status: 'working',
        createdAt: at,
        lastUpdatedAt: at,
        ttlMs: 60_000,
        pollIntervalMs,
      },
      served: [],
    };
    tasks.set(entry.task.taskId, entry);
    return entry;
  };
  /**
   * The flat CreateTaskResult (CallToolResult's type has no room for it, the wire does). It has no
   * inputRequests: server 2.4 takes a tool result carrying them for an input round of its own and refuses it.
   */
  const created = (entry: Entry) => {
    const { inputRequests: _asked, ...task } = entry.task;
    return { resultType: 'task', ...task } as unknown as CallToolResult;
  };

  const wire = (task: Task) =>
    task.status === 'completed' && task.result && options.innerResultType !== false
      ? { ...task, result: { resultType: 'complete', ...task.result } }
      : { ...task };

  const known = (taskId: string): Entry => {
    const entry = tasks.get(taskId);
    if (!entry) throw new ProtocolError(-32602, 'Failed to retrieve task: Task not found');
    return entry;
  };

  const factory: McpServerFactory = ({ era }) => {
    const bareLegacy = era === 'legacy' && options.legacyTasks === 'bare';
    const server = new McpServer(
      { name: 'sdk24-test-receiver', version: '0.0.1' },
      {
        capabilities: {
          extensions: { [EXTENSION]: {} },
          ...(bareLegacy && { tasks: { requests: { tools: { call: {} } } } }),
        },
      },
    );

    const sleep = server.registerTool(
      'sleep_task',
      {
        description: 'Sleeps, then answers with a text; a task when the client declares the tasks extension.',
        inputSchema: z.object({
          ms: z.number().int().min(0).max(60_000).default(300),
          pollIntervalMs: z.number().int().min(10).max(10_000).default(100),
          // A life counted in polls rather than in time: working for this many tasks/get, then completed
          // (or at ms, if that comes first). A test then sees it working however slow the machine.
          workingPolls: z.number().int().min(0).max(1000).optional(),
        }),
      },
      async ({ ms, pollIntervalMs, workingPolls }, ctx) => {
        if (bareLegacy) {
          // What a v1 server returned for a task-augmented call; 2.4's 2025 side refuses it on the way out.
          const at = now();
          const task = {
            taskId: randomUUID(),
            status: 'working',
            createdAt: at,
            lastUpdatedAt: at,
            ttl: 60_000,
          };
          return { task } as unknown as CallToolResult;
        }
        if (era === 'modern' && declaresExtension(ctx) && options.bareOn2026) {
          const at = now();
          const task = { taskId: randomUUID(), status: 'working', createdAt: at, lastUpdatedAt: at };
          return { task } as unknown as CallToolResult;
        }
        if (era === 'modern' && declaresExtension(ctx)) {
          const entry = create(pollIntervalMs);
          const end = () => finish(entry, { status: 'completed', result: text(`Slept ${ms} ms`) });
          entry.timer = setTimeout(end, ms);
          if (workingPolls !== undefined) entry.endAfterPolls = { polls: workingPolls, end };
          return created(entry);
        }
        await new Promise((r) => setTimeout(r, ms));
        return text(`Slept ${ms} ms`);
      },
    );
    // registerTool takes no execution field in 2.4; a v1 server's listing had one.
    if (bareLegacy) sleep.execution = { taskSupport: 'optional' };

    server.registerTool(
      'ask_once',
      {
        description: 'Asks one question through inputRequests, then completes with the answer. Task only.',
        inputSchema: z.object({ question: z.string().max(200).default('Which colour?') }),
      },
      async ({ question }, ctx) => {
        if (era !== 'modern' || !declaresExtension(ctx))
          return { ...text('ask_once runs only as a task over 2026-07-28'), isError: true };
        const entry = create(100);
        const key = `ask-${entry.task.taskId}`;
        update(entry, {
          status: 'input_required',
          inputRequests: {
            [key]: {
              method: 'elicitation/create',
              params: {
                mode: 'form',
                message: question,
                requestedSchema: {
                  type: 'object',
                  properties: { answer: { type: 'string' } },
                  required: ['answer'],
                },
              },
            },
          },
        });
        entry.pending = {
          key,
          answer: (value) => {
            const parsed = Answer.safeParse(value);
            if (!parsed.success) throw new ProtocolError(-32602, `Invalid input response for ${key}`);
            finish(entry, {
              status: 'completed',
              result: text(`You answered: ${parsed.data.content.answer}`),
            });
          },
        };
        return created(entry);
      },
    );

    if (era === 'modern') {
      const TaskParams = z.looseObject({ taskId: z.string().min(1).max(200) });
      server.server.setRequestHandler('tasks/get', { params: TaskParams }, ({ taskId }) => {
        const entry = known(taskId);
        const ends = entry.endAfterPolls;
        if (ends && entry.task.status === 'working' && entry.served.length >= ends.polls) ends.end();
        entry.served.push(entry.task.status);
        return wire(entry.task);
      });
      server.server.setRequestHandler('tasks/update', { params: TaskParams }, ({ taskId }, ctx) => {
        const entry = known(taskId);
        const pending = entry.pending;
        // Server 2.4 lifts inputResponses out of the params into the context.
        const value = pending ? ctx.mcpReq.inputResponses?.[pending.key] : undefined;
        if (pending && value !== undefined) pending.answer(value);
        return {};
      });
      server.server.setRequestHandler('tasks/cancel', { params: TaskParams }, ({ taskId }) => {
        const entry = known(taskId);
        const live = entry.task.status === 'working' || entry.task.status === 'input_required';
        if (live && options.honourCancel !== false)
          finish(entry, { status: 'cancelled', statusMessage: 'Cancelled by the client' });
        return {};
      });
    }
    return server;
  };

  const handler = createMcpHandler(factory, {
    ...(options.mode === 'strict' && { legacy: 'reject' as const }),
    keepAliveMs: 0,
    // Refused requests (a 2025 initialize on the strict one) are answers, not failures.
    onerror: () => undefined,
  });

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'POST') {
      try {
        const message = JSON.parse(body) as { method?: unknown; params?: { taskId?: unknown } };
        if (typeof message.method === 'string')
          arrivals.push({
            method: message.method,
            taskId: typeof message.params?.taskId === 'string' ? message.params.taskId : undefined,
            at: Date.now(),
          });
      } catch {
        // Not JSON: the SDK answers it.
      }
    }
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || name === 'content-length' || name === 'connection') continue;
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const response = await handler.fetch(
      new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
        method: req.method,
        headers,
        body: req.method === 'POST' ? body : undefined,
        signal: controller.signal,
      }),
    );
    res.statusCode = response.status;
    response.headers.forEach((value, name) => res.setHeader(name, value));
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise((r) => res.once('drain', r));
    }
    res.end();
  };

  const http = createServer((req, res) => {
    serve(req, res).catch(() => {
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    arrivals,
    served: (taskId) => [...(tasks.get(taskId)?.served ?? [])],
    task: (taskId) => tasks.get(taskId)?.task,
    close: async () => {
      for (const entry of tasks.values()) clearTimeout(entry.timer);
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
