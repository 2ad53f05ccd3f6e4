/**
 * subscriptions/listen for task ids. Server 2.4's listen router knows only list-changed and resource filters
 * and drops taskIds from its acknowledgement, so the demo serves these streams itself from its task store.
 */
import type { Response } from 'express';
import { SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import { DEMO_2026_SERVER_INFO } from './server.js';
import type { DemoTaskStore2026 } from './task-store.js';
import { isTerminal, type DetailedTask, type TaskEvent } from './task.js';
import { SUBSCRIPTION_ID_KEY, jsonRpcError, type JsonRpcRequestBody } from './wire.js';

export interface TaskListenOptions {
  /** SSE comment frames so idle proxies keep the stream; 15 s as the SDK's own streams. */
  keepAliveMs?: number;
  maxTaskIds?: number;
  /** Open streams beyond this are refused, so a forgotten page cannot pile them up. */
  maxStreams?: number;
}

export interface TaskListen {
  /** Answers a listen request whose headers and envelope already passed, with taskIds in its filter. */
  serve(res: Response, request: JsonRpcRequestBody, taskIds: unknown): void;
  count(): number;
  closeAll(): void;
}

export function createTaskListen(store: DemoTaskStore2026, options: TaskListenOptions = {}): TaskListen {
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const maxTaskIds = options.maxTaskIds ?? 100;
  const maxStreams = options.maxStreams ?? 100;
  const streams = new Set<() => void>();

  const serve = (res: Response, request: JsonRpcRequestBody, taskIds: unknown) => {
    if (
      !Array.isArray(taskIds) ||
      taskIds.length > maxTaskIds ||
      !taskIds.every((id): id is string => typeof id === 'string')
    ) {
      res.status(400).json(
        jsonRpcError(request.id, {
          code: -32602,
          message: `Invalid params: notifications.taskIds must be an array of at most ${maxTaskIds} task ids`,
        }),
      );
      return;
    }
    if (streams.size >= maxStreams) {
      res
        .status(503)
        .json(
          jsonRpcError(request.id, { code: -32000, message: 'Too many open subscriptions: close one first' }),
        );
      return;
    }
    const meta = { [SUBSCRIPTION_ID_KEY]: request.id };
    const accepted = [...new Set(taskIds)].filter((id) => store.lookup(id).kind === 'live');
    const watching = new Set(accepted);

    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
    });
    const send = (message: object) => {
      if (!res.writableEnded && !res.destroyed)
        res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    };
    const push = (task: DetailedTask) =>
      send({ jsonrpc: '2.0', method: 'notifications/tasks', params: { ...task, _meta: meta } });

    let unsubscribe = () => {};
    const keepAlive = setInterval(() => {
      if (!res.writableEnded) res.write(': keep-alive\n\n');
    }, keepAliveMs);
    const cleanup = () => {
      clearInterval(keepAlive);
      unsubscribe();
      streams.delete(end);
    };
    // Used by closeAll(): the receiver is going away, so the stream is dropped without a final result.
    const end = () => {
      cleanup();
      res.end();
    };
    let done = false;
    const finishIfDone = () => {
      if (done || watching.size > 0) return;
      done = true;
      send({
        jsonrpc: '2.0',
        id: request.id,
        result: {
          resultType: 'complete',
          _meta: {
            ...meta,
            [SERVER_INFO_META_KEY]: {
              name: DEMO_2026_SERVER_INFO.name,
              version: DEMO_2026_SERVER_INFO.version,
            },
          },
        },
      });
      end();
    };
    streams.add(end);
    res.on('close', cleanup);

    send({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: accepted }, _meta: meta },
    });
    // The current state first: a change between the client's last poll and this stream would be lost else.
    for (const id of accepted) {
      const found = store.lookup(id);
      if (found.kind !== 'live') {
        watching.delete(id);
        continue;
      }
      push(found.task);
      if (isTerminal(found.task.status)) watching.delete(id);
    }
    unsubscribe = store.subscribe((event: TaskEvent) => {
      if (event.type === 'removed') {
        watching.delete(event.taskId);
      } else if (watching.has(event.task.taskId)) {
        push(event.task);
        if (isTerminal(event.task.status)) watching.delete(event.task.taskId);
      }
      finishIfDone();
    });
    finishIfDone();
  };

  return {
    serve,
    count: () => streams.size,
    closeAll: () => {
      for (const end of [...streams]) end();
    },
  };
}
