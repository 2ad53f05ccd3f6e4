import type { McpSession, TasksApi } from '../mcp';
import type { TaskTracker } from '../tasks/tracker';

/** The live objects behind the current connection: not state to render, so they stay out of the stores. */
export interface Runtime {
  connectionId: number;
  session: McpSession;
  api: TasksApi;
  tracker: TaskTracker;
  dispose: () => Promise<void>;
}

let current: Runtime | null = null;
const listeners = new Set<() => void>();

export const getRuntime = (): Runtime | null => current;

export function setRuntime(next: Runtime | null): Runtime | null {
  const previous = current;
  current = next;
  for (const listener of listeners) listener();
  return previous;
}

/** For useSyncExternalStore: components re-read the runtime when the connection changes. */
export function subscribeRuntime(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
