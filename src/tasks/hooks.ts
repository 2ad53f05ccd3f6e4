import { useMemo } from 'react';
import { judgeTask, type TaskRuleBreak } from '../rules/task-judge';
import type { TrackedTask } from '../tracker/task-store';
import { useTasks } from './tasks-store';
import { useConnection } from '../state/connection-store';
import type { TaskResultSnapshot, TaskSnapshot, Normalised } from '../mcp';

/** The latest snapshot the engine sent for this task; reading it never sends anything. */
export function useTaskSnapshot(taskId: string): TaskSnapshot | undefined {
  return useTasks((s) => s.snapshots.get(taskId));
}

export function useTaskResult(taskId: string): Normalised<TaskResultSnapshot> | undefined {
  return useTasks((s) => s.results.get(taskId));
}

/**
 * What the report card's rules hold against the receiver because of this task: judged for this task alone,
 * again only when its record, snapshot or result changes (a poll of another task costs nothing here).
 */
export function useTaskRuleBreaks(
  task: TrackedTask | undefined,
  snapshot: TaskSnapshot | undefined,
  result: Normalised<TaskResultSnapshot> | undefined,
): TaskRuleBreak[] {
  const era = useConnection((s) => s.era ?? s.support?.era ?? '2025-11-25');
  const clockOffsetMs = useTasks((s) => s.clockOffsetMs);
  const clockSamples = useTasks((s) => s.clockSamples);
  return useMemo(
    () => (task ? judgeTask({ task, snapshot, result, era, clockOffsetMs, clockSamples }) : []),
    [task, snapshot, result, era, clockOffsetMs, clockSamples],
  );
}
