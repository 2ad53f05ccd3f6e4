import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { Task } from '@modelcontextprotocol/sdk/types.js';

interface TaskPatch {
  pollInterval?: number;
  statusMessage?: string;
}

/**
 * The SDK's in-memory store fixes pollInterval at creation and cannot give a terminal task a statusMessage
 * of its own. The demo needs both (variable_poll_job, flaky_job), so it keeps a small overlay that every
 * read goes through. Everything else (ttl clean-up, session scoping, paging) stays the SDK's.
 */
export class DemoTaskStore extends InMemoryTaskStore {
  private readonly patches = new Map<string, TaskPatch>();

  patch(taskId: string, patch: TaskPatch): void {
    this.patches.set(taskId, { ...this.patches.get(taskId), ...patch });
  }

  private apply<T extends Task | null>(task: T): T {
    if (!task) return task;
    const patch = this.patches.get(task.taskId);
    return patch ? { ...task, ...patch } : task;
  }

  override async getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    const task = this.apply(await super.getTask(taskId, sessionId));
    // The overlay must not outlive the task the SDK purged at its ttl.
    if (!task) this.patches.delete(taskId);
    return task;
  }

  override async listTasks(
    cursor?: string,
    sessionId?: string,
  ): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const page = await super.listTasks(cursor, sessionId);
    return { ...page, tasks: page.tasks.map((t) => this.apply(t)) };
  }

  override cleanup(): void {
    this.patches.clear();
    super.cleanup();
  }
}
