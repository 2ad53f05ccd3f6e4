import { useSyncExternalStore } from 'react';
import { skipToken, useQuery } from '@tanstack/react-query';
import { useStore } from 'zustand';
import { getRuntime, subscribeRuntime } from '../connection/runtime';
import { queryKeys } from '../app/queryKeys';
import type { TaskResultSnapshot, TaskSnapshot, Normalised } from '../mcp';
import { createTasksStore, type TasksState } from './store';

const emptyStore = createTasksStore();

export function useRuntime() {
  return useSyncExternalStore(subscribeRuntime, getRuntime);
}

/** Reads the current connection's task records; an empty store while nothing is connected. */
export function useTasks<T>(selector: (state: TasksState) => T): T {
  const runtime = useRuntime();
  return useStore(runtime?.tracker.store ?? emptyStore, selector);
}

/** The latest snapshot the tracker put in the cache; reading it never sends anything. */
export function useTaskSnapshot(taskId: string): TaskSnapshot | undefined {
  const runtime = useRuntime();
  const query = useQuery<TaskSnapshot | null>({
    queryKey: queryKeys.task(runtime?.connectionId ?? 0, taskId),
    queryFn: skipToken,
  });
  return query.data ?? undefined;
}

export function useTaskResult(taskId: string): Normalised<TaskResultSnapshot> | undefined {
  const runtime = useRuntime();
  const query = useQuery<Normalised<TaskResultSnapshot>>({
    queryKey: queryKeys.taskResult(runtime?.connectionId ?? 0, taskId),
    queryFn: skipToken,
  });
  return query.data;
}
