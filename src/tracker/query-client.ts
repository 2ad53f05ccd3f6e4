import { QueryClient } from '@tanstack/query-core';

/**
 * Nothing here refetches on its own: the tracker decides when to ask a receiver (design.md), and a result
 * is kept for the life of the page whatever the receiver's ttl.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: false,
        staleTime: Infinity,
        gcTime: Infinity,
        refetchOnWindowFocus: false,
        refetchOnReconnect: false,
      },
    },
  });
}
