/**
 * The 2025 demo's tools, with the same names and arguments so the same scripts run on both endpoints, over
 * the 2026-07-28 tasks extension: the receiver, not the client, decides on a task, and input rounds go
 * through inputRequests / tasks/update instead of a server-to-client request on tasks/result.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CallToolResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { DemoTaskStore2026 } from './task-store.js';
import type { TaskHandle } from './task.js';
import {
  flakyJobInput,
  richResult,
  shortTtlInput,
  slowJobInput,
  ttlArg,
  variablePollInput,
} from '../demo/tool-kit.js';
import { declaresTasksExtension } from './wire.js';

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

const ElicitAnswer = z.union([
  z.object({ action: z.literal('accept'), content: z.object({ answer: z.string().max(10_000) }).loose() }),
  z.object({ action: z.enum(['decline', 'cancel']) }).loose(),
]);

interface TaskPlan {
  ttlMs: number;
  pollIntervalMs: number;
  work: (task: TaskHandle) => Promise<void>;
}

interface DemoToolConfig<Shape extends z.ZodRawShape> {
  title: string;
  description: string;
  inputSchema: Shape;
  plan: (args: z.infer<z.ZodObject<Shape>>) => TaskPlan;
  /** Only for tools that may answer without a task (summarise); the others need the extension. */
  inline?: (args: z.infer<z.ZodObject<Shape>>, signal: AbortSignal) => Promise<CallToolResult>;
}

/** Tools that can never answer inline: a 2026 call without the extension gets -32021 before dispatch. */
export const TASK_ONLY_TOOLS: ReadonlySet<string> = new Set([
  'slow_job',
  'flaky_job',
  'variable_poll_job',
  'short_ttl_job',
  'ask_user',
  'rich_result_job',
]);

export function registerDemoTools2026(
  server: McpServer,
  store: DemoTaskStore2026,
  era: 'legacy' | 'modern',
): void {
  const define = <Shape extends z.ZodRawShape>(name: string, config: DemoToolConfig<Shape>) => {
    server.registerTool(
      name,
      { title: config.title, description: config.description, inputSchema: z.object(config.inputSchema) },
      async (args: z.infer<z.ZodObject<Shape>>, ctx: ServerContext): Promise<CallToolResult> => {
        if (era === 'modern' && declaresTasksExtension(ctx.mcpReq.envelope)) {
          const plan = config.plan(args);
          const task = store.create({ ttlMs: plan.ttlMs, pollIntervalMs: plan.pollIntervalMs });
          store.run(task.taskId, plan.work);
          // CallToolResult's type has no room for the extension's CreateTaskResult; the wire does.
          return { resultType: 'task', ...task } as unknown as CallToolResult;
        }
        if (config.inline) return config.inline(args, ctx.mcpReq.signal);
        // Reached only by 2025 clients of the dual-era variant: server 2.4 has no 2025 task runtime.
        return {
          ...text(`${name} runs only as a task: call it over 2026-07-28 with the tasks extension declared.`),
          isError: true,
        };
      },
    );
  };

  define('slow_job', {
    title: 'Slow job',
    description:
      'Works through a number of steps, one statusMessage per step, then completes with a text result. Runs only as a task.',
    inputSchema: slowJobInput('pollIntervalMs'),
    plan: ({ durationMs, steps, pollIntervalMs, ttlMs, label }) => ({
      ttlMs: ttlMs ?? 60_000,
      pollIntervalMs,
      work: async (task) => {
        for (let i = 1; i <= steps; i++) {
          task.working(`Step ${i}/${steps}: ${label}`);
          await task.sleep(durationMs / steps);
        }
        task.complete(text(`Finished ${label}: ${steps} steps in ${durationMs} ms.`));
      },
    }),
  });

  define('flaky_job', {
    title: 'Flaky job',
    description:
      'Works for a while, then fails: status failed with a statusMessage and a JSON-RPC error. Runs only as a task.',
    inputSchema: flakyJobInput,
    plan: ({ failAfterMs, reason, ttlMs }) => ({
      ttlMs: ttlMs ?? 60_000,
      pollIntervalMs: 500,
      work: async (task) => {
        task.working('Calling upstream…');
        await task.sleep(failAfterMs);
        // The 2025 demo ends failed too; 2026 keeps failed for JSON-RPC errors, so the reason is one.
        task.fail({ code: -32603, message: `flaky_job failed: ${reason}` }, `Failed: ${reason}`);
      },
    }),
  });

  define('variable_poll_job', {
    title: 'Variable poll job',
    description:
      'Asks for a fast pollIntervalMs first, then a slow one mid-run, to show the hint being re-read. Runs only as a task.',
    inputSchema: variablePollInput,
    plan: ({ fastMs, slowMs, switchAfterMs, totalMs, ttlMs }) => ({
      ttlMs: ttlMs ?? 60_000,
      pollIntervalMs: fastMs,
      work: async (task) => {
        task.working(`Polling hint ${fastMs} ms`);
        await task.sleep(switchAfterMs);
        task.setPollInterval(slowMs);
        task.working(`Polling hint now ${slowMs} ms`);
        await task.sleep(Math.max(0, totalMs - switchAfterMs));
        task.complete(text(`pollInterval went ${fastMs} → ${slowMs} ms.`));
      },
    }),
  });

  define('short_ttl_job', {
    title: 'Short-TTL job',
    description:
      'Completes fast with a ttlMs of a few seconds, so the countdown, expiry and purge can be watched. Runs only as a task.',
    inputSchema: shortTtlInput,
    plan: ({ ttlMs, durationMs }) => ({
      ttlMs,
      pollIntervalMs: 500,
      work: async (task) => {
        await task.sleep(durationMs);
        task.complete(text(`Done. This task is purged ${ttlMs} ms after it was created.`));
      },
    }),
  });

  define('ask_user', {
    title: 'Ask the user',
    description:
      'Goes input_required with a question in inputRequests (elicitation/create), answered through tasks/update, then completes with the answer. Runs only as a task.',
    inputSchema: {
      question: z.string().max(500).default('Which colour should the report use?'),
      ttlMs: ttlArg,
    },
    plan: ({ question, ttlMs }) => ({
      ttlMs: ttlMs ?? 600_000,
      pollIntervalMs: 1000,
      work: async (task) => {
        await task.sleep(500);
        const answer = await task.ask(
          // Keys must be unique over the task's life; a fresh one also never matches another task's answer.
          `ask_user-${randomUUID()}`,
          {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: question,
              requestedSchema: {
                type: 'object',
                properties: { answer: { type: 'string', title: 'Answer' } },
                required: ['answer'],
              },
            },
          },
          (value) => ElicitAnswer.safeParse(value).data,
        );
        task.working(`Got "${answer.action}", finishing…`);
        await task.sleep(500);
        const reply =
          answer.action === 'accept'
            ? `You answered: ${answer.content.answer}`
            : `You chose to ${answer.action}.`;
        task.complete({
          ...text(reply),
          structuredContent: {
            action: answer.action,
            content: answer.action === 'accept' ? answer.content : null,
          },
        });
      },
    }),
  });

  define('rich_result_job', {
    title: 'Rich result job',
    description:
      'Completes with every kind of content: markdown text, an image, a resource link, an embedded resource, structuredContent. padKb adds a large text block. Runs only as a task.',
    inputSchema: {
      durationMs: z.number().int().min(0).max(60_000).default(1500),
      padKb: z.number().int().min(0).max(3000).default(0).describe('Extra text, in KB (up to 3 MB)'),
      ttlMs: ttlArg,
    },
    plan: ({ durationMs, padKb, ttlMs }) => ({
      ttlMs: ttlMs ?? 60_000,
      pollIntervalMs: 500,
      work: async (task) => {
        task.working('Rendering report…');
        await task.sleep(durationMs);
        task.complete(richResult(padKb));
      },
    }),
  });

  const summarise = async (input: string, sleep: (ms: number) => Promise<void>) => {
    await sleep(1200);
    const words = input.split(/\s+/).filter(Boolean);
    return text(`${words.length} words; starts "${words.slice(0, 5).join(' ')}"`);
  };
  define('summarise', {
    title: 'Summarise (task optional)',
    description:
      'Runs as a task when the client declared the tasks extension, or answers inline after a short wait otherwise.',
    inputSchema: { text: z.string().max(10_000).default('Tasks let a client call now and fetch later.') },
    plan: ({ text: input }) => ({
      ttlMs: 60_000,
      pollIntervalMs: 300,
      work: async (task) => task.complete(await summarise(input, (ms) => task.sleep(ms))),
    }),
    inline: ({ text: input }, signal) => summarise(input, (ms) => store.sleepFor(ms, signal)),
  });

  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Answers at once with its input. Never a task.',
      inputSchema: z.object({ message: z.string().max(10_000) }),
    },
    async ({ message }) => text(message),
  );
}
