import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { TaskRequestHandlerExtra } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ElicitResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DemoTaskStore } from './demo-task-store.js';

/** A 5x5 red dot: enough to show that image content renders from base64. */
const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAUAAAAFCAYAAACNbyblAAAAHElEQVQI12P4//8/w38GIAXDIBKE0DHxgljNBAAO9TXL0Y4OHwAAAABJRU5ErkJggg==';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Work for one task runs detached from the tools/call that created it. A task can be cancelled or purged
 * while it runs, and then the store refuses updates: that is the signal to stop, not an error to report.
 */
function runDetached(taskStore: RequestTaskStore, taskId: string, work: () => Promise<void>): void {
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

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

/** Every demo tool keeps its state in the SDK's task store, so reads are the store's. */
const storeBacked = {
  getTask: async (_args: unknown, extra: TaskRequestHandlerExtra) => extra.taskStore.getTask(extra.taskId),
  getTaskResult: async (_args: unknown, extra: TaskRequestHandlerExtra) =>
    (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
};

const ttlArg = z.number().int().min(1000).max(3_600_000).optional().describe('Task ttl in ms');

/** Registers every demo tool. The store is the session's, so the demo can reshape its tasks. */
export function registerDemoTools(server: McpServer, store: DemoTaskStore): void {
  server.experimental.tasks.registerToolTask(
    'slow_job',
    {
      title: 'Slow job',
      description:
        'Works through a number of steps, one statusMessage per step, then completes with a text result.',
      inputSchema: {
        durationMs: z.number().int().min(0).max(600_000).default(6000).describe('Total run time in ms'),
        steps: z.number().int().min(1).max(100).default(4).describe('Steps, one statusMessage each'),
        pollIntervalMs: z
          .number()
          .int()
          .min(50)
          .max(60_000)
          .default(1000)
          .describe('pollInterval the receiver asks for'),
        ttlMs: ttlArg,
        label: z.string().max(200).default('job').describe('Free text echoed in messages and result'),
      },
      execution: { taskSupport: 'required' },
    },
    {
      createTask: async ({ durationMs, steps, pollIntervalMs, ttlMs, label }, extra) => {
        const task = await extra.taskStore.createTask({
          ttl: ttlMs ?? extra.taskRequestedTtl ?? 60_000,
          pollInterval: pollIntervalMs,
        });
        runDetached(extra.taskStore, task.taskId, async () => {
          for (let i = 1; i <= steps; i++) {
            await extra.taskStore.updateTaskStatus(task.taskId, 'working', `Step ${i}/${steps}: ${label}`);
            await sleep(durationMs / steps);
          }
          await extra.taskStore.storeTaskResult(
            task.taskId,
            'completed',
            text(`Finished ${label}: ${steps} steps in ${durationMs} ms.`),
          );
        });
        return { task };
      },
      ...storeBacked,
    },
  );

  server.experimental.tasks.registerToolTask(
    'flaky_job',
    {
      title: 'Flaky job',
      description: 'Works for a while, then fails with a statusMessage and an isError result.',
      inputSchema: {
        failAfterMs: z.number().int().min(0).max(600_000).default(3000),
        reason: z.string().max(500).default('upstream dependency timed out'),
        ttlMs: ttlArg,
      },
      execution: { taskSupport: 'required' },
    },
    {
      createTask: async ({ failAfterMs, reason, ttlMs }, extra) => {
        const task = await extra.taskStore.createTask({
          ttl: ttlMs ?? extra.taskRequestedTtl ?? 60_000,
          pollInterval: 500,
        });
        runDetached(extra.taskStore, task.taskId, async () => {
          await extra.taskStore.updateTaskStatus(task.taskId, 'working', 'Calling upstream…');
          await sleep(failAfterMs);
          store.patch(task.taskId, { statusMessage: `Failed: ${reason}` });
          await extra.taskStore.storeTaskResult(task.taskId, 'failed', {
            content: [{ type: 'text', text: `flaky_job failed: ${reason}` }],
            isError: true,
          });
        });
        return { task };
      },
      ...storeBacked,
    },
  );

  server.experimental.tasks.registerToolTask(
    'ask_user',
    {
      title: 'Ask the user',
      description:
        'Goes input_required and asks a question through the task (elicitation/create, delivered on tasks/result), then completes with the answer.',
      inputSchema: {
        question: z.string().max(500).default('Which colour should the report use?'),
        ttlMs: ttlArg,
      },
      execution: { taskSupport: 'required' },
    },
    {
      createTask: async ({ question, ttlMs }, extra) => {
        const task = await extra.taskStore.createTask({
          ttl: ttlMs ?? extra.taskRequestedTtl ?? 600_000,
          pollInterval: 1000,
        });
        runDetached(extra.taskStore, task.taskId, async () => {
          await sleep(500);
          await extra.taskStore.updateTaskStatus(
            task.taskId,
            'input_required',
            `Waiting for an answer: ${question}`,
          );
          // relatedTask routes the request through the task's message queue, delivered on tasks/result.
          const answer = await server.server.request(
            {
              method: 'elicitation/create',
              params: {
                message: question,
                requestedSchema: {
                  type: 'object',
                  properties: {
                    answer: { type: 'string', title: 'Answer', minLength: 1, maxLength: 200 },
                    confident: { type: 'boolean', title: 'Sure about it?', default: true },
                  },
                  required: ['answer'],
                },
              },
            },
            ElicitResultSchema,
            // A person answers this, so give them far longer than the SDK's one-minute default.
            { relatedTask: { taskId: task.taskId }, timeout: 10 * 60_000 },
          );
          await extra.taskStore.updateTaskStatus(
            task.taskId,
            'working',
            `Got "${answer.action}", finishing…`,
          );
          await sleep(500);
          const reply =
            answer.action === 'accept'
              ? `You answered: ${String(answer.content?.answer ?? '')}`
              : `You chose to ${answer.action}.`;
          await extra.taskStore.storeTaskResult(task.taskId, 'completed', {
            ...text(reply),
            structuredContent: { action: answer.action, content: answer.content ?? null },
          });
        });
        return { task };
      },
      ...storeBacked,
    },
  );

  server.experimental.tasks.registerToolTask(
    'variable_poll_job',
    {
      title: 'Variable poll job',
      description:
        'Asks for a fast pollInterval first, then a slow one mid-run, to show the hint being re-read.',
      inputSchema: {
        fastMs: z.number().int().min(50).max(60_000).default(250),
        slowMs: z.number().int().min(50).max(60_000).default(2000),
        switchAfterMs: z.number().int().min(0).max(600_000).default(3000),
        totalMs: z.number().int().min(0).max(600_000).default(9000),
        ttlMs: ttlArg,
      },
      execution: { taskSupport: 'required' },
    },
    {
      createTask: async ({ fastMs, slowMs, switchAfterMs, totalMs, ttlMs }, extra) => {
        const task = await extra.taskStore.createTask({
          ttl: ttlMs ?? extra.taskRequestedTtl ?? 60_000,
          pollInterval: fastMs,
        });
        runDetached(extra.taskStore, task.taskId, async () => {
          await extra.taskStore.updateTaskStatus(task.taskId, 'working', `Polling hint ${fastMs} ms`);
          await sleep(switchAfterMs);
          store.patch(task.taskId, { pollInterval: slowMs });
          await extra.taskStore.updateTaskStatus(task.taskId, 'working', `Polling hint now ${slowMs} ms`);
          await sleep(Math.max(0, totalMs - switchAfterMs));
          await extra.taskStore.storeTaskResult(
            task.taskId,
            'completed',
            text(`pollInterval went ${fastMs} → ${slowMs} ms.`),
          );
        });
        return { task };
      },
      ...storeBacked,
    },
  );

  server.experimental.tasks.registerToolTask(
    'short_ttl_job',
    {
      title: 'Short-TTL job',
      description:
        'Completes fast with a ttl of a few seconds, so the countdown, expiry and purge can be watched.',
      inputSchema: {
        ttlMs: z.number().int().min(1000).max(600_000).default(8000),
        durationMs: z.number().int().min(0).max(60_000).default(1000),
      },
      execution: { taskSupport: 'required' },
    },
    {
      createTask: async ({ ttlMs, durationMs }, extra) => {
        const task = await extra.taskStore.createTask({ ttl: ttlMs, pollInterval: 500 });
        runDetached(extra.taskStore, task.taskId, async () => {
          await sleep(durationMs);
          await extra.taskStore.storeTaskResult(
            task.taskId,
            'completed',
            text(`Done. This task is purged ${ttlMs} ms after it completed.`),
          );
        });
        return { task };
      },
      ...storeBacked,
    },
  );

  server.experimental.tasks.registerToolTask(
    'rich_result_job',
    {
      title: 'Rich result job',
      description:
        'Completes with every kind of content: markdown text, an image, a resource link, an embedded resource, structuredContent. padKb adds a large text block, to see how a big result is shown.',
      inputSchema: {
        durationMs: z.number().int().min(0).max(60_000).default(1500),
        padKb: z.number().int().min(0).max(3000).default(0).describe('Extra text, in KB (up to 3 MB)'),
        ttlMs: ttlArg,
      },
      execution: { taskSupport: 'required' },
    },
    {
      createTask: async ({ durationMs, padKb, ttlMs }, extra) => {
        const task = await extra.taskStore.createTask({
          ttl: ttlMs ?? extra.taskRequestedTtl ?? 60_000,
          pollInterval: 500,
        });
        runDetached(extra.taskStore, task.taskId, async () => {
          await extra.taskStore.updateTaskStatus(task.taskId, 'working', 'Rendering report…');
          await sleep(durationMs);
          await extra.taskStore.storeTaskResult(task.taskId, 'completed', {
            content: [
              {
                type: 'text',
                text: '# Quarterly report\n\n- **Revenue** up 12%\n- _Costs_ flat\n\n`code` and a [link](https://modelcontextprotocol.io).',
              },
              { type: 'image', data: TINY_PNG, mimeType: 'image/png' },
              { type: 'resource_link', uri: 'file:///reports/q3.csv', name: 'q3.csv', mimeType: 'text/csv' },
              {
                type: 'resource',
                resource: {
                  uri: 'memo://summary',
                  mimeType: 'text/plain',
                  text: 'Summary: all targets met.',
                },
              },
              ...(padKb > 0
                ? [{ type: 'text' as const, text: `Appendix:\n${'0123456789abcdef'.repeat(padKb * 64)}` }]
                : []),
            ],
            structuredContent: { revenue: { q2: 100, q3: 112 }, costs: [40, 40], ok: true },
          });
        });
        return { task };
      },
      ...storeBacked,
    },
  );

  server.experimental.tasks.registerToolTask(
    'summarise',
    {
      title: 'Summarise (task optional)',
      description: 'Runs as a task when asked to, or answers inline after a short wait when called plainly.',
      inputSchema: { text: z.string().max(10_000).default('Tasks let a client call now and fetch later.') },
      execution: { taskSupport: 'optional' },
    },
    {
      createTask: async ({ text: input }, extra) => {
        const task = await extra.taskStore.createTask({
          ttl: extra.taskRequestedTtl ?? 60_000,
          pollInterval: 300,
        });
        runDetached(extra.taskStore, task.taskId, async () => {
          await sleep(1200);
          const words = input.split(/\s+/).filter(Boolean);
          await extra.taskStore.storeTaskResult(
            task.taskId,
            'completed',
            text(`${words.length} words; starts "${words.slice(0, 5).join(' ')}"`),
          );
        });
        return { task };
      },
      ...storeBacked,
    },
  );

  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Answers at once with its input. Never a task (taskSupport forbidden).',
      inputSchema: { message: z.string().max(10_000) },
    },
    async ({ message }) => text(message),
  );
}
