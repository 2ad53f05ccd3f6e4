import { create } from 'zustand';
import type { ClassifiedError } from '../mcp';

/** How the last tasks/list went, for the refresh button and its error line. */
export const useTaskListStatus = create<{
  loading: boolean;
  lastSyncedAt?: number;
  error?: ClassifiedError;
}>()(() => ({
  loading: false,
}));
