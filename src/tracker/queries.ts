import { QueryClient } from '@tanstack/query-core';

/**
 * A react-query client for the Worker (where the tracker polls through it) or the page (where it holds the tool
 * list the page asks for; tasks are in the page's tasks store).
 * Nothing here refetches on its own: the tracker decides when to ask a receiver (docs/architecture.md), and a
 * result is kept for the life of the page whatever the receiver's ttl.
 *
 * In the Worker the cache holds the very snapshot object the tracker merged, not a copy: `sharing: false`
 * turns off structural sharing, which would otherwise walk every answer and keep a new object per poll. On
 * the page it stays on.
 */
export function createQueryClient({ sharing = true }: { sharing?: boolean } = {}): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: false,
        structuralSharing: sharing,
        staleTime: Infinity,
        gcTime: Infinity,
        refetchOnWindowFocus: false,
        refetchOnReconnect: false,
      },
    },
  });
}

/** Every react-query key Taskscope uses, scoped by connection so a reconnect never mixes two sessions' data. */
export const queryKeys = {
  all: ['taskscope'] as const,
  connection: (connectionId: number) => [...queryKeys.all, 'connection', connectionId] as const,
  tools: (connectionId: number) => [...queryKeys.connection(connectionId), 'tools'] as const,
  task: (connectionId: number, taskId: string) =>
    [...queryKeys.connection(connectionId), 'task', taskId] as const,
  taskResult: (connectionId: number, taskId: string) =>
    [...queryKeys.connection(connectionId), 'task', taskId, 'result'] as const,
};
