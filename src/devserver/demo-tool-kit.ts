/** What every demo tool shares: detached work, text results, store-backed reads, the ttl argument. */
import { z } from 'zod';
import type { TaskRequestHandlerExtra } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A 5x5 red dot: enough to show that image content renders from base64. */
export const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAUAAAAFCAYAAACNbyblAAAAHElEQVQI12P4//8/w38GIAXDIBKE0DHxgljNBAAO9TXL0Y4OHwAAAABJRU5ErkJggg==';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Work for one task runs detached from the tools/call that created it. A task can be cancelled or purged
 * while it runs, and then the store refuses updates: that is the signal to stop, not an error to report.
 */
export function runDetached(taskStore: RequestTaskStore, taskId: string, work: () => Promise<void>): void {
  work().catch(async (error: unknown) => {
    const task = await taskStore.getTask(taskId).catch(() => null);
    if (!task || ['completed', 'failed', 'cancelled'].includes(task.status)) return;
    const message = error instanceof Error ? error.message : String(error);
    await taskStore
      .storeTaskResult(taskId, 'failed', {
        content: [{ type: 'text', text: `Demo receiver error: ${message}` }],
        isError: true,
      })
      .catch(() => undefined);
  });
}

export function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

/** Every demo tool keeps its state in the SDK's task store, so reads are the store's. */
export const storeBacked = {
  getTask: async (_args: unknown, extra: TaskRequestHandlerExtra) => extra.taskStore.getTask(extra.taskId),
  getTaskResult: async (_args: unknown, extra: TaskRequestHandlerExtra) =>
    (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
};

export const ttlArg = z.number().int().min(1000).max(3_600_000).optional().describe('Task ttl in ms');
