import { normaliseResult, normaliseTask } from '../../src/mcp';
import type { TaskApiPort } from '../../src/tracker/tracker';

type Listener = Parameters<TaskApiPort['onTaskStatus']>[0];
export interface Call {
  method: string;
  taskId: string;
  at: number;
}

/**
 * A receiver scripted per test, for tracker unit tests under fake time: each answer is raw wire JSON run
 * through the real normalisers, so only the transport is left out. Integration tests use real receivers.
 */
export class ScriptedReceiver implements TaskApiPort {
  calls: Call[] = [];
  private listeners = new Set<Listener>();
  onGet: (taskId: string) => Promise<unknown> = () => Promise.reject(new Error('no script for tasks/get'));
  onResult: (taskId: string) => Promise<unknown> = () =>
    Promise.reject(new Error('no script for tasks/result'));
  onCancel: (taskId: string) => Promise<unknown> = () =>
    Promise.reject(new Error('no script for tasks/cancel'));
  onList: () => Promise<unknown[]> = () => Promise.resolve([]);

  count(method: string, taskId?: string): number {
    return this.calls.filter((c) => c.method === method && (taskId === undefined || c.taskId === taskId))
      .length;
  }

  getTask: TaskApiPort['getTask'] = async (taskId, previous) => {
    this.calls.push({ method: 'tasks/get', taskId, at: Date.now() });
    return normaliseTask(await this.onGet(taskId), { expectedTaskId: taskId, previous });
  };
  getTaskResult: TaskApiPort['getTaskResult'] = async (taskId) => {
    this.calls.push({ method: 'tasks/result', taskId, at: Date.now() });
    return normaliseResult(await this.onResult(taskId), { expectedTaskId: taskId });
  };
  cancelTask: TaskApiPort['cancelTask'] = async (taskId, previous) => {
    this.calls.push({ method: 'tasks/cancel', taskId, at: Date.now() });
    return normaliseTask(await this.onCancel(taskId), { expectedTaskId: taskId, previous });
  };
  listTasks: TaskApiPort['listTasks'] = async () => {
    this.calls.push({ method: 'tasks/list', taskId: '', at: Date.now() });
    const raw = await this.onList();
    return { tasks: raw.flatMap((r) => normaliseTask(r).value ?? []), warnings: [] };
  };
  onTaskStatus: TaskApiPort['onTaskStatus'] = (listener) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  push(method: string, params: unknown): void {
    for (const l of this.listeners)
      l(normaliseTask(params), { method, params: params as Record<string, unknown> });
  }
}

export const rawTask = (over: Record<string, unknown> = {}) => ({
  taskId: 't1',
  status: 'working',
  createdAt: new Date(Date.now()).toISOString(),
  lastUpdatedAt: new Date(Date.now()).toISOString(),
  ttl: 60_000,
  pollInterval: 1000,
  ...over,
});
