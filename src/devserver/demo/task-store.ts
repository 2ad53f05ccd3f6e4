import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { Result, Task } from '@modelcontextprotocol/sdk/types.js';

interface TaskPatch {
  pollInterval?: number;
  statusMessage?: string;
}

/** Past createdAt + ttl (the protocol's ttl counts from creation): the demo answers as if it were purged. */
function expired(task: Task, now = Date.now()): boolean {
  return typeof task.ttl === 'number' && Date.parse(task.createdAt) + task.ttl <= now;
}

/**
 * The SDK's in-memory store fixes pollInterval at creation and cannot give a terminal task a statusMessage
 * of its own. The demo needs both (variable_poll_job, flaky_job), so it keeps a small overlay that every
 * read goes through. Everything else (session scoping, paging) stays the SDK's.
 *
 * The SDK purges a running task at its ttl but starts the ttl again when the task ends, keeping a finished
 * task up to createdAt + run + ttl. The demo is the healthy receiver, so its reads end at createdAt + ttl
 * (its memory is still freed by the SDK's own timer, a run later).
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
    const stored = await super.getTask(taskId, sessionId);
    const task = stored && !expired(stored) ? this.apply(stored) : null;
    // The overlay must not outlive the task purged at its ttl.
    if (!task) this.patches.delete(taskId);
    return task;
  }

  override async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    // Throws as the SDK's store does for a task it no longer has.
    if (!(await this.getTask(taskId, sessionId))) throw new Error(`Task with ID ${taskId} not found`);
    return super.getTaskResult(taskId, sessionId);
  }

  override async listTasks(
    cursor?: string,
    sessionId?: string,
  ): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const page = await super.listTasks(cursor, sessionId);
    const now = Date.now();
    return { ...page, tasks: page.tasks.filter((t) => !expired(t, now)).map((t) => this.apply(t)) };
  }

  override cleanup(): void {
    this.patches.clear();
    super.cleanup();
  }
}
