import { createQueryClient } from '../tracker/queries';

/**
 * The page's cache of what the page itself asks the engine for: the receiver's tool list. Task records,
 * snapshots and results are in the tasks store (`tasks/tasks-store.ts`). Nothing in it refetches on its own.
 */
export const queryClient = createQueryClient();
