import type { QueryCacheNotifyEvent, QueryClient } from '@tanstack/query-core';
import { queryKeys } from '../tracker/queries';
import { TaskChangeCollector } from '../tracker/task-changes';
import type { TaskTracker } from '../tracker/tracker';
import type { Batch } from './messages';
import type { TaskParts } from './outbox';

/**
 * What of a tracker changed since the last batch, for a live connection and a replay alike: its store marks the
 * task records, the query cache the snapshots and results. `take` hands each change over once.
 */
export class TaskPartsMarks {
  private readonly collector = new TaskChangeCollector();
  private tasksDirty = false;
  private readonly snapshots = new Set<string>();
  private readonly results = new Set<string>();

  tasksChanged(): void {
    this.tasksDirty = true;
  }

  /** Marks the snapshot or result a query-cache event brought; which one it was, or nothing for other events. */
  cacheChanged(event: QueryCacheNotifyEvent): { taskId: string; result: boolean } | undefined {
    if (event.type !== 'updated' || event.action.type !== 'success') return undefined;
    const key = event.query.queryKey as readonly unknown[];
    const taskId = key[4];
    if (key[3] !== 'task' || typeof taskId !== 'string') return undefined;
    const result = key[5] === 'result';
    (result ? this.results : this.snapshots).add(taskId);
    return { taskId, result };
  }

  take(tracker: TaskTracker, queryClient: QueryClient, connectionId: number): TaskParts {
    const tasks = this.tasksDirty
      ? (this.collector.collect(tracker.store.getState()) ?? undefined)
      : undefined;
    this.tasksDirty = false;
    const snapshots: Batch['snapshots'] = [];
    const results: Batch['results'] = [];
    for (const taskId of this.snapshots) {
      const snapshot = tracker.snapshot(taskId);
      if (snapshot) snapshots.push([taskId, snapshot]);
    }
    for (const taskId of this.results) {
      const result = queryClient.getQueryData<Batch['results'][number][1]>(
        queryKeys.taskResult(connectionId, taskId),
      );
      if (result) results.push([taskId, result]);
    }
    this.snapshots.clear();
    this.results.clear();
    return { connectionId, tasks, snapshots, results };
  }
}
