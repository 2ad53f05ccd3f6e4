import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { richResult, runDetached, sleep, storeBacked, text, ttlArg } from './tool-kit.js';

/** Tools that show what a task can carry: a question for a person, rich content, and the two other taskSupports. */
export function registerInteractionTools(server: McpServer): void {
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
          await extra.taskStore.storeTaskResult(task.taskId, 'completed', richResult(padKb));
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
