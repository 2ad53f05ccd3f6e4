import type { McpSession, TasksApi } from '../mcp';

/** The live objects behind the current connection: not state to render, so they stay out of the stores. */
export interface Runtime {
  connectionId: number;
  session: McpSession;
  api: TasksApi;
  dispose: () => Promise<void>;
}

let current: Runtime | null = null;

export const getRuntime = (): Runtime | null => current;

export function setRuntime(next: Runtime | null): Runtime | null {
  const previous = current;
  current = next;
  return previous;
}
