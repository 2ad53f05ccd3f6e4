import { createQueryClient } from '../tracker/queries';

/**
 * The page's cache: tool lists it asks for, and task snapshots and results the engine's batches put there.
 * Nothing in it refetches on its own.
 */
export const queryClient = createQueryClient();
