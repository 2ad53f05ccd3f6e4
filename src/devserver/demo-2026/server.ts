/** The per-request McpServer of the 2026-07-28 demo endpoint, with the tasks/* methods server 2.4 lacks. */
import { z } from 'zod';
import {
  McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  type McpServerFactory,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { DemoTaskStore2026 } from './task-store.js';
import type { DetailedTask } from './task.js';
import { registerDemoTools2026 } from './tools.js';
import { TASKS_EXTENSION, declaresTasksExtension } from './wire.js';

export const DEMO_2026_SERVER_INFO = {
  name: 'taskscope-demo-2026',
  title: 'Taskscope demo receiver (2026-07-28)',
  version: '0.1.0',
};

/** Instances are per request (per era); the store they share is the receiver's. */
export function demoServerFactory2026(store: DemoTaskStore2026): McpServerFactory {
  return ({ era }) => {
    const server = new McpServer(DEMO_2026_SERVER_INFO, {
      // A dual-era variant lists the extension on its 2025 leg too, as server 2.4 does: that is how a 2025
      // client can tell there is more to be had over 2026-07-28.
      capabilities: { logging: {}, extensions: { [TASKS_EXTENSION]: {} } },
      instructions:
        'Demo receiver for Taskscope over 2026-07-28: every tool but echo and summarise runs only as a task (tasks extension).',
    });
    registerDemoTools2026(server, store, era);
    if (era === 'modern') registerTaskMethods(server, store);
    return server;
  };
}

const TaskParams = z.looseObject({ taskId: z.string().min(1).max(200) });

function registerTaskMethods(mcp: McpServer, store: DemoTaskStore2026): void {
  const known = (taskId: string, ctx: ServerContext): DetailedTask => {
    if (!declaresTasksExtension(ctx.mcpReq.envelope)) {
      throw new MissingRequiredClientCapabilityError({
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    }
    const found = store.lookup(taskId);
    if (found.kind === 'live') return found.task;
    throw new ProtocolError(
      -32602,
      `Failed to retrieve task: ${found.kind === 'expired' ? 'Task has expired' : 'Task not found'}`,
    );
  };

  // The encoder stamps resultType "complete" on all three: handlers return the bare shapes.
  mcp.server.setRequestHandler('tasks/get', { params: TaskParams }, ({ taskId }, ctx) => ({
    ...known(taskId, ctx),
  }));

  mcp.server.setRequestHandler('tasks/update', { params: TaskParams }, ({ taskId }, ctx) => {
    known(taskId, ctx);
    // The SDK lifts inputResponses out of every request's params (MRTR), so they are read from ctx.
    const { invalid } = store.answer(taskId, ctx.mcpReq.inputResponses ?? {});
    if (invalid.length > 0) {
      throw new ProtocolError(
        -32602,
        `Invalid input response for ${invalid.join(', ')}: not a result for the request under that key (an elicitation takes {action: "accept", content} or {action: "decline" | "cancel"})`,
      );
    }
    return {};
  });

  mcp.server.setRequestHandler('tasks/cancel', { params: TaskParams }, ({ taskId }, ctx) => {
    known(taskId, ctx);
    store.cancel(taskId);
    return {};
  });
}
