/**
 * A 2026-07-28 recording on the wire (the tasks extension): no session; server/discover; a tools/call answered
 * with a task (resultType "task"); tasks/get carrying the recorded questions in inputRequests and the recorded
 * result or error inline; tasks/update taking the answers; tasks/cancel; subscriptions/listen streaming
 * notifications/tasks when the recording had pushes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorObject, isRecord, openSse, rpc, sendJson, type JsonRpcId, type SseStream } from './json-rpc';
import type { ServedTask } from './playback';
import type { WireContext } from './wire-2025';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const MAX_STREAMS = 100;
const MAX_TASK_IDS = 100;

export function createWire2026(ctx: WireContext & { capabilities?: Record<string, unknown> }) {
  const { playback } = ctx;
  const streams = new Set<SseStream>();
  const meta = { [SERVER_INFO_META]: ctx.serverInfo };

  const wire = (task: ServedTask) => {
    const state = playback.current(task);
    const ending = task.plan.ending;
    const inputRequests =
      state.status === 'input_required' && task.waiting.size > 0
        ? Object.fromEntries(
            [...task.waiting].map(([key, q]) => [key, { method: q.method, params: q.params }]),
          )
        : undefined;
    return {
      taskId: task.taskId,
      status: state.status,
      ...(state.statusMessage !== undefined ? { statusMessage: state.statusMessage } : {}),
      createdAt: new Date(task.createdAt).toISOString(),
      lastUpdatedAt: new Date(task.updatedAt).toISOString(),
      ttlMs: task.plan.ttl,
      pollIntervalMs: state.pollInterval,
      ...(inputRequests ? { inputRequests } : {}),
      ...(state.status === 'completed' && ending?.result
        ? { result: { resultType: 'complete', ...ending.result } }
        : {}),
      ...(state.status === 'failed' && ending?.error ? { error: ending.error } : {}),
      ...(state.status === 'failed' && !ending?.error && ending?.result ? { result: ending.result } : {}),
    };
  };

  const known = (params: Record<string, unknown>): ServedTask => {
    const task = playback.get(String(params.taskId ?? ''));
    if (!task) throw rpc(-32602, 'Failed to retrieve task: Task not found');
    return task;
  };

  const methods: Record<string, (params: Record<string, unknown>) => Record<string, unknown>> = {
    // ttlMs and cacheScope: 2026-07-28 lets a client cache these answers, and the SDK 2.x client requires both.
    'server/discover': () => ({
      ttlMs: 0,
      cacheScope: 'private',
      supportedVersions: ['2026-07-28'],
      capabilities: ctx.capabilities ?? { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
      ...(ctx.instructions ? { instructions: ctx.instructions } : {}),
    }),
    ping: () => ({}),
    'tools/list': () => ({
      ttlMs: 0,
      cacheScope: 'private',
      tools: ctx.tools.map((t) => ({
        name: t.name,
        ...(t.title ? { title: t.title } : {}),
        ...(t.description ? { description: t.description } : {}),
        inputSchema: t.inputSchema,
      })),
    }),
    'tools/call': (params) => {
      const name = String(params.name ?? '');
      const plan = ctx.planFor(name);
      if (!plan) throw rpc(-32602, `Unknown tool ${name.slice(0, 100)}. ${ctx.holds()}`);
      const task = playback.start(plan);
      const { inputRequests: _none, result: _r, error: _e, ...created } = wire(task);
      return { ...created, resultType: 'task' };
    },
    'tasks/get': (params) => wire(known(params)),
    'tasks/update': (params) => {
      const task = known(params);
      const responses = isRecord(params.inputResponses) ? params.inputResponses : {};
      // Unknown and already answered keys are ignored, as the extension asks.
      for (const key of Object.keys(responses)) playback.answer(task, key);
      return {};
    },
    'tasks/cancel': (params) => {
      playback.cancel(known(params));
      return {};
    },
  };

  /** subscriptions/listen for task ids: the current state, then every change, until all have ended. */
  const listen = (res: ServerResponse, id: JsonRpcId, params: Record<string, unknown>) => {
    const filter = isRecord(params.notifications) ? params.notifications : {};
    const ids = filter.taskIds;
    if (!Array.isArray(ids) || ids.length > MAX_TASK_IDS || !ids.every((x) => typeof x === 'string'))
      throw rpc(-32602, `Invalid params: notifications.taskIds must be at most ${MAX_TASK_IDS} task ids`);
    if (streams.size >= MAX_STREAMS) throw rpc(-32000, 'Too many open subscriptions: close one first');
    const subscription = { [SUBSCRIPTION_ID]: id };
    // A recording without pushes is served as its receiver was: the subscription acknowledges no task.
    const watching = new Set(
      ctx.recording.pushes ? (ids as string[]).filter((taskId) => playback.get(taskId)) : [],
    );
    let off = () => {};
    const stream = openSse(res, () => {
      streams.delete(stream);
      off();
    });
    streams.add(stream);
    const push = (task: ServedTask) => {
      stream.send({
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: { ...wire(task), _meta: subscription },
      });
      if (playback.ended(task)) watching.delete(task.taskId);
    };
    const finishIfDone = () => {
      if (watching.size > 0 || stream.closed) return;
      stream.send({
        jsonrpc: '2.0',
        id,
        result: { resultType: 'complete', _meta: { ...subscription, ...meta } },
      });
      stream.end();
    };
    stream.send({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: [...watching] }, _meta: subscription },
    });
    for (const taskId of [...watching]) {
      const task = playback.get(taskId);
      if (task) push(task);
      else watching.delete(taskId);
    }
    off = playback.subscribe((event) => {
      if (!watching.has(event.task.taskId)) return;
      if (event.type === 'removed') watching.delete(event.task.taskId);
      else if (event.type === 'changed') push(event.task);
      finishIfDone();
    });
    finishIfDone();
  };

  const post = (_req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const message = isRecord(body) ? body : {};
    const id = message.id;
    if (typeof id !== 'string' && typeof id !== 'number') {
      res.writeHead(202).end();
      return;
    }
    const method = String(message.method ?? '');
    const params = isRecord(message.params) ? message.params : {};
    try {
      if (method === 'subscriptions/listen') return listen(res, id, params);
      if (method === 'initialize')
        throw rpc(
          -32022,
          'Unsupported protocol version: this recording is of a 2026-07-28 receiver (server/discover, no initialize)',
        );
      const handler = methods[method];
      if (!handler) throw rpc(-32601, `Method not found: ${method.slice(0, 100)}. ${ctx.holds()}`);
      const result = handler(params);
      const { _meta: own, ...rest } = result;
      sendJson(res, 200, {
        jsonrpc: '2.0',
        id,
        result: {
          resultType: 'complete',
          ...rest,
          _meta: { ...(isRecord(own) ? own : {}), ...meta },
        },
      });
    } catch (caught) {
      sendJson(res, 200, { jsonrpc: '2.0', id, error: errorObject(caught) });
    }
  };

  const close = () => {
    for (const stream of streams) stream.end();
  };

  return { post, close };
}
