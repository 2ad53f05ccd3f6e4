import { TasksApi, type CreateTaskOptions } from './tasks-api';
import { TasksApi2026 } from './tasks-api-2026';
import type { Notification } from './session-types';
import type { TaskActivity } from './task-activity';
import type { SessionHolder } from './session-holder';
import type { Normalised, TaskResultSnapshot, TaskSnapshot, ToolInfo } from './types';

/**
 * The one task interface the tracker and the engine use, whichever generation the receiver speaks: each call
 * goes to the 2025-11-25 or the 2026-07-28 implementation by the session in the holder now.
 */
export class ReceiverTasksApi {
  readonly v2025: TasksApi;
  readonly v2026: TasksApi2026;

  constructor(private readonly holder: SessionHolder) {
    this.v2025 = new TasksApi(holder);
    this.v2026 = new TasksApi2026(holder);
  }

  private get impl(): TasksApi | TasksApi2026 {
    return this.holder.era === '2026-07-28' ? this.v2026 : this.v2025;
  }

  get support() {
    return this.impl.support;
  }

  listTools() {
    return this.impl.listTools();
  }

  /** A 2026-07-28 receiver decides the lifetime itself: there is no ttl to ask for there. */
  createTask(tool: ToolInfo, args: Record<string, unknown>, options: CreateTaskOptions = {}) {
    return this.holder.era === '2026-07-28'
      ? this.v2026.createTask(tool, args)
      : this.v2025.createTask(tool, args, options);
  }

  callTool(tool: ToolInfo, args: Record<string, unknown>): Promise<Normalised<TaskResultSnapshot>> {
    return this.impl.callTool(tool, args);
  }

  getTask(taskId: string, previous?: TaskSnapshot) {
    return this.impl.getTask(taskId, previous);
  }

  getTaskResult(taskId: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}) {
    return this.holder.era === '2026-07-28'
      ? this.v2026.getTaskResult(taskId)
      : this.v2025.getTaskResult(taskId, options);
  }

  cancelTask(taskId: string, previous?: TaskSnapshot) {
    return this.impl.cancelTask(taskId, previous);
  }

  listTasks() {
    return this.impl.listTasks();
  }

  onTaskStatus(
    listener: (update: Normalised<TaskSnapshot | null>, notification: Notification) => void,
  ): () => void {
    // Both listen; each passes on only while its generation is the one spoken.
    const stop2025 = this.v2025.onTaskStatus((update, n) => {
      if (this.holder.era !== '2026-07-28') listener(update, n);
    });
    const stop2026 = this.v2026.onTaskStatus((update, n) => {
      if (this.holder.era === '2026-07-28') listener(update, n);
    });
    return () => {
      stop2025();
      stop2026();
    };
  }

  /** Progress and log lines for a task: 2025-11-25 only (2026-07-28 sends them only before a task exists). */
  onTaskActivity(listener: (taskId: string, activity: TaskActivity) => void): () => void {
    return this.v2025.onTaskActivity((taskId, activity) => {
      if (this.holder.era !== '2026-07-28') listener(taskId, activity);
    });
  }

  dispose(): void {
    this.v2026.dispose();
  }
}
