/**
 * What a case (the faults case, or a hostile receiver's case) does for each method where its spec does not say
 * otherwise: MCP 2025-11-25 tasks as the spec has them (initialize, tools/list with one tool `job`, a
 * task-augmented tools/call, tasks/list, tasks/get, tasks/result blocking while the task runs, tasks/cancel).
 * A case's spec hooks in at each step.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  type CaseState,
  defaultList,
  Held,
  isRecord,
  lookup,
  makeTask,
  POLL_MS,
  PROTOCOL_VERSION,
  relatedMeta,
  result,
  type Rpc,
  rpcError,
  TERMINAL,
} from './wire.js';

export interface MethodContext {
  /** Every held-open request and stream, so close() can end them. */
  held: Set<Held>;
  /** Counts a tasks/get for the case's figures. */
  countGet: (c: CaseState, taskId: string) => void;
}

export function answerMethod(rpc: Rpc, method: string, ctx: MethodContext): void {
  const { held, countGet } = ctx;
  const { c, res, id, params } = rpc;
  switch (method) {
    case 'initialize':
      return result(
        res,
        id,
        {
          protocolVersion: PROTOCOL_VERSION,
          capabilities: {
            tools: {},
            tasks: c.spec.tasksCapability ?? { list: {}, cancel: {}, requests: { tools: { call: {} } } },
          },
          serverInfo: { name: `hostile-${c.name}`, version: '0' },
          instructions: `Taskscope's hostile receiver, case "${c.name}": ${c.description}. It misbehaves on purpose, to test clients.`,
        },
        { 'Mcp-Session-Id': `hostile-${c.name}-${randomUUID()}` },
      );
    case 'ping':
      return result(res, id, {});
    case 'tools/list':
      return result(res, id, {
        tools: c.spec.tools?.() ?? [
          {
            name: 'job',
            description: `Starts a task on the hostile receiver's "${c.name}" case; it works for ever.`,
            inputSchema: { type: 'object', properties: {} },
            execution: { taskSupport: 'required' },
          },
        ],
      });
    case 'tools/call': {
      if (c.spec.call) return c.spec.call(rpc);
      if (params.name !== 'job') return rpcError(res, id, -32602, `Unknown tool: ${String(params.name)}`);
      if (!isRecord(params.task)) return rpcError(res, id, -32601, 'Tool job must be called as a task');
      const task = makeTask(`${c.name}-job-${++c.created}-${randomBytes(3).toString('hex')}`, Date.now(), {
        pollInterval: c.spec.newTaskPollInterval ?? POLL_MS,
        statusMessage: 'started by tools/call; works for ever',
      });
      c.listed.push(task);
      c.byId.set(task.taskId, task);
      return result(res, id, { task });
    }
    case 'tasks/list': {
      const cursor = params.cursor;
      if (cursor !== undefined && typeof cursor !== 'string')
        return rpcError(res, id, -32602, 'Invalid cursor');
      return (c.spec.list ?? defaultList)(rpc, cursor);
    }
    case 'tasks/get': {
      const taskId = params.taskId;
      if (typeof taskId !== 'string') return rpcError(res, id, -32602, 'taskId must be a string');
      countGet(c, taskId);
      const task = lookup(c, taskId);
      if (c.spec.get) return c.spec.get(rpc, task);
      return task
        ? result(res, id, task)
        : rpcError(res, id, -32602, `Task not found: ${taskId.slice(0, 100)}`);
    }
    case 'tasks/result': {
      const taskId = params.taskId;
      if (typeof taskId !== 'string') return rpcError(res, id, -32602, 'taskId must be a string');
      const task = lookup(c, taskId);
      if (!task) return rpcError(res, id, -32602, `Task not found: ${taskId.slice(0, 100)}`);
      if (c.spec.result?.(rpc, task)) return;
      if (task.status === 'completed' || task.status === 'failed') {
        const failed = task.status === 'failed';
        return result(res, id, {
          content: [{ type: 'text', text: failed ? 'The job failed.' : 'The job is done.' }],
          isError: failed,
          _meta: relatedMeta(taskId),
        });
      }
      if (task.status === 'cancelled')
        return rpcError(res, id, -32602, `Task ${taskId} has no result stored`);
      // A live task: block until it ends (only a cancel ends one here) or the receiver closes.
      let waiting = c.waiters.get(taskId);
      if (!waiting) c.waiters.set(taskId, (waiting = new Set()));
      const set = waiting;
      const waiter: Held = new Held(
        held,
        c,
        res,
        () => {
          set.delete(waiter);
          if (set.size === 0 && c.waiters.get(taskId) === set) c.waiters.delete(taskId);
        },
        id,
      );
      set.add(waiter);
      return;
    }
    case 'tasks/cancel': {
      const taskId = params.taskId;
      if (typeof taskId !== 'string') return rpcError(res, id, -32602, 'taskId must be a string');
      if (c.spec.cancel) return c.spec.cancel(rpc);
      const task = lookup(c, taskId);
      if (!task) return rpcError(res, id, -32602, `Task not found: ${taskId.slice(0, 100)}`);
      if (TERMINAL.has(task.status)) {
        return rpcError(res, id, -32602, `Cannot cancel task ${taskId}: it is already ${task.status}`);
      }
      task.status = 'cancelled';
      task.statusMessage = 'Cancelled by request';
      task.lastUpdatedAt = new Date().toISOString();
      c.byId.set(taskId, task);
      for (const waiter of [...(c.waiters.get(taskId) ?? [])]) {
        waiter.answer(200, {
          jsonrpc: '2.0',
          id: waiter.requestId,
          error: { code: -32602, message: `Task ${taskId} was cancelled: no result stored` },
        });
      }
      return result(res, id, task);
    }
    default:
      return rpcError(res, id, -32601, `Method not found: ${method}`);
  }
}
