import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { DemoTaskStore } from './task-store.js';
import {
  flakyJobInput,
  runDetached,
  shortTtlInput,
  sleep,
  slowJobInput,
  storeBacked,
  text,
  variablePollInput,
} from './tool-kit.js';
import { registerInteractionTools } from './tools-interaction.js';
import { RELATED_TASK_META } from '../../mcp/protocol-rules.js';

/** Registers every demo tool. The store is the session's, so the demo can reshape its tasks. */
export function registerDemoTools(server: McpServer, store: DemoTaskStore): void {
  registerLifecycleTools(server, store);
  registerInteractionTools(server);
}

/** Tools that show a task's life: steps, failure, a changing pollInterval, a short ttl. */
function registerLifecycleTools(server: McpServer, store: DemoTaskStore): void {
  server.experimental.tasks.registerToolTask(
    'slow_job',
    {
      title: 'Slow job',
      description:
        'Works through a number of steps, one statusMessage per step, then completes with a text result.',
      inputSchema: slowJobInput('pollInterval'),

      execution: { taskSupport: 'required' },
    },
    {
      createTask: async ({ durationMs, steps, pollIntervalMs, ttlMs, label }, extra) => {
        const task = await extra.taskStore.createTask({
          ttl: ttlMs ?? extra.taskRequestedTtl ?? 60_000,
          pollInterval: pollIntervalMs,
        });
        // The progress token stays valid for the task's whole life (2025-11-25): progress and a log line go
        // on the session's GET stream, since the tools/call that carried the token has long been answered.
        const progressToken = extra._meta?.progressToken;
        const notify = (notification: { method: string; params: Record<string, unknown> }) =>
          server.server.notification(notification as never).catch(() => undefined);
        void notify({
          method: 'notifications/message',
          params: {
            level: 'info',
            logger: 'slow_job',
            data: `slow_job ${label}: ${steps} steps over ${durationMs} ms`,
            _meta: { [RELATED_TASK_META]: { taskId: task.taskId } },
          },
        });
        runDetached(extra.taskStore, task.taskId, async () => {
          for (let i = 1; i <= steps; i++) {
            await extra.taskStore.updateTaskStatus(task.taskId, 'working', `Step ${i}/${steps}: ${label}`);
            if (progressToken !== undefined)
              void notify({
                method: 'notifications/progress',
                params: {
                  progressToken,
                  progress: i - 1,
                  total: steps,
                  message: `Step ${i}/${steps}: ${label}`,
                },
              });
            await sleep(durationMs / steps);
          }
          if (progressToken !== undefined)
            void notify({
              method: 'notifications/progress',
              params: { progressToken, progress: steps, total: steps, message: `Done: ${label}` },
            });
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
      inputSchema: flakyJobInput,
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
    'variable_poll_job',
    {
      title: 'Variable poll job',
      description:
        'Asks for a fast pollInterval first, then a slow one mid-run, to show the hint being re-read.',
      inputSchema: variablePollInput,
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
      inputSchema: shortTtlInput,
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
            text(`Done. This task is purged ${ttlMs} ms after it was created.`),
          );
        });
        return { task };
      },
      ...storeBacked,
    },
  );
}
