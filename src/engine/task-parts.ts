import type { QueryCacheNotifyEvent, QueryClient } from '@tanstack/query-core';
import { queryKeys } from '../tracker/queries';
import { TaskChangeCollector } from '../tracker/task-changes';
import type { TaskTracker } from '../tracker/tracker';
import type { Batch } from './messages';
import type { TaskParts } from './outbox';
import { OverviewFeed, listWindow, sameWindow, type PageTaskView, type TaskListWindow } from './task-views';

/**
 * What of a tracker changed since the last batch, for a live connection and a replay alike: its store marks the
 * task records, the query cache the snapshots and results. `take` hands each change over once, and only for
 * what the page shows (`PageTaskView`): the list's rows it asked for, the open task, the overview's summaries.
 */
export class TaskPartsMarks {
  private readonly collector = new TaskChangeCollector();
  private readonly overview = new OverviewFeed();
  private tasksDirty = false;
  private readonly snapshots = new Set<string>();
  private readonly results = new Set<string>();
  private viewVersion = -1;
  private sentList: TaskListWindow | undefined;

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

  take(
    tracker: Pick<TaskTracker, 'store' | 'snapshot'>,
    queryClient: QueryClient,
    connectionId: number,
    view: PageTaskView,
    now: number,
  ): TaskParts {
    const viewMoved = view.version !== this.viewVersion;
    this.viewVersion = view.version;
    const state = tracker.store.getState();
    const request = view.request;
    let list: TaskListWindow | undefined;
    let window = this.sentList;
    if ((this.tasksDirty || viewMoved) && request.end > request.start) {
      window = listWindow(state, request);
      if (!sameWindow(this.sentList, window) || viewMoved) list = window;
      this.sentList = window;
    }
    if (request.end <= request.start) this.sentList = window = undefined;
    let wanted: Set<string> | undefined;
    if (!request.all) {
      wanted = new Set(window?.ids);
      if (request.detail !== undefined) wanted.add(request.detail);
    }
    const tasks =
      this.tasksDirty || viewMoved ? (this.collector.collect(state, wanted) ?? undefined) : undefined;
    const overview =
      this.tasksDirty || viewMoved ? this.overview.take(state, request.overview, now) : undefined;
    this.tasksDirty = false;
    // A record that comes into view brings its snapshot and result along, whatever changed.
    for (const taskId of tasks?.added ?? []) {
      this.snapshots.add(taskId);
      this.results.add(taskId);
    }
    const snapshots: Batch['snapshots'] = [];
    const results: Batch['results'] = [];
    for (const taskId of this.snapshots) {
      const snapshot = this.collector.holds(taskId) ? tracker.snapshot(taskId) : undefined;
      if (snapshot) snapshots.push([taskId, snapshot]);
    }
    for (const taskId of this.results) {
      if (!this.collector.holds(taskId)) continue;
      const result = queryClient.getQueryData<Batch['results'][number][1]>(
        queryKeys.taskResult(connectionId, taskId),
      );
      if (result) results.push([taskId, result]);
    }
    this.snapshots.clear();
    this.results.clear();
    return {
      connectionId,
      tasks,
      snapshots,
      results,
      ...(list ? { taskList: list } : {}),
      ...(overview ? { overview } : {}),
    };
  }
}
