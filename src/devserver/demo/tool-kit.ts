/** What every demo tool shares: detached work, text results, store-backed reads, the ttl argument. */
import { z } from 'zod';
import type { TaskRequestHandlerExtra } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A 5x5 red dot: enough to show that image content renders from base64. */
export const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAUAAAAFCAYAAACNbyblAAAAHElEQVQI12P4//8/w38GIAXDIBKE0DHxgljNBAAO9TXL0Y4OHwAAAABJRU5ErkJggg==';

/**
 * A job's wait. Its timer does not hold the process open: a demo task still working when Taskscope is stopped
 * (Ctrl-C) must not keep it running until the task would have ended.
 */
export const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

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

/** slow_job's arguments, the same on both demo endpoints; `interval` names the field in each generation. */
export function slowJobInput(interval: 'pollInterval' | 'pollIntervalMs') {
  return {
    durationMs: z.number().int().min(0).max(600_000).default(6000).describe('Total run time in ms'),
    steps: z.number().int().min(1).max(100).default(4).describe('Steps, one statusMessage each'),
    pollIntervalMs: z
      .number()
      .int()
      .min(50)
      .max(60_000)
      .default(1000)
      .describe(`${interval} the receiver asks for`),
    ttlMs: ttlArg,
    label: z.string().max(200).default('job').describe('Free text echoed in messages and result'),
  };
}

/** The other jobs' arguments, the same on both demo endpoints. */
export const flakyJobInput = {
  failAfterMs: z.number().int().min(0).max(600_000).default(3000),
  reason: z.string().max(500).default('upstream dependency timed out'),
  ttlMs: ttlArg,
};

export const variablePollInput = {
  fastMs: z.number().int().min(50).max(60_000).default(250),
  slowMs: z.number().int().min(50).max(60_000).default(2000),
  switchAfterMs: z.number().int().min(0).max(600_000).default(3000),
  totalMs: z.number().int().min(0).max(600_000).default(9000),
  ttlMs: ttlArg,
};

export const shortTtlInput = {
  ttlMs: z.number().int().min(1000).max(600_000).default(8000),
  durationMs: z.number().int().min(0).max(60_000).default(1000),
};

/** rich_result_job's result on both endpoints: markdown, an image, links, a resource, structured content. */
export function richResult(padKb: number): CallToolResult {
  return {
    content: [
      {
        type: 'text',
        text: '# Quarterly report\n\n- **Revenue** up 12%\n- _Costs_ flat\n\n`code` and a [link](https://modelcontextprotocol.io).',
      },
      { type: 'image', data: TINY_PNG, mimeType: 'image/png' },
      { type: 'resource_link', uri: 'file:///reports/q3.csv', name: 'q3.csv', mimeType: 'text/csv' },
      {
        type: 'resource',
        resource: { uri: 'memo://summary', mimeType: 'text/plain', text: 'Summary: all targets met.' },
      },
      ...(padKb > 0
        ? [{ type: 'text' as const, text: `Appendix:\n${'0123456789abcdef'.repeat(padKb * 64)}` }]
        : []),
    ],
    structuredContent: { revenue: { q2: 100, q3: 112 }, costs: [40, 40], ok: true },
  };
}
