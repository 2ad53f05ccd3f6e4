import { skipToken, useQuery } from '@tanstack/react-query';
import { useConnection } from '../state/connection';
import { queryKeys } from '../tracker/queries';
import type { TaskResultSnapshot, TaskSnapshot, Normalised } from '../mcp';

/** The latest snapshot the engine sent for this task; reading it never sends anything. */
export function useTaskSnapshot(taskId: string): TaskSnapshot | undefined {
  const connectionId = useConnection((s) => s.id);
  const query = useQuery<TaskSnapshot | null>({
    queryKey: queryKeys.task(connectionId, taskId),
    queryFn: skipToken,
  });
  return query.data ?? undefined;
}

export function useTaskResult(taskId: string): Normalised<TaskResultSnapshot> | undefined {
  const connectionId = useConnection((s) => s.id);
  const query = useQuery<Normalised<TaskResultSnapshot>>({
    queryKey: queryKeys.taskResult(connectionId, taskId),
    queryFn: skipToken,
  });
  return query.data;
}
