import { BoundedLists, type TaskActivity } from '../mcp';
import { appendEntry, updateTask, type TasksStore } from './task-store';
import type { Clock } from './tracker-types';

/** Progress reports closer together than this update the bar but add no timeline entry. */
const PROGRESS_ENTRY_GAP_MS = 100;
/** Activity for tasks not known yet, held for this many tasks and this many reports each at most. */
const MAX_EARLY_TASKS = 200;
const MAX_EARLY_PER_TASK = 20;

export interface ActivityIntakeDeps {
  store: TasksStore;
  clock: Clock;
  isTracked: (taskId: string) => boolean;
  isDisposed: () => boolean;
}

/**
 * Progress and log lines, which come at a receiver's pace and often before the task they name is known. Kept
 * apart from the tracker's merging of status answers because neither changes a task's status or lifecycle:
 * they only feed its bar and its timeline, each under a cap of its own.
 */
export class ActivityIntake {
  private readonly early = new BoundedLists<TaskActivity>(MAX_EARLY_TASKS, MAX_EARLY_PER_TASK);

  constructor(private readonly deps: ActivityIntakeDeps) {}

  /**
   * Progress on the task's token, or a log line naming it. The bar follows every report; the timeline keeps
   * one progress entry per PROGRESS_ENTRY_GAP_MS at most, so a receiver reporting a thousand times a second
   * cannot push the task's observations out of its history.
   */
  receive(taskId: string, activity: TaskActivity): void {
    if (this.deps.isDisposed()) return;
    if (!this.deps.isTracked(taskId)) {
      // A log line naming a task usually comes before the create answer that makes it known: hold it.
      this.early.add(taskId, activity);
      return;
    }
    const at = this.deps.clock.now();
    updateTask(this.deps.store, taskId, (task) => {
      if (activity.kind === 'log') return appendEntry(task, { ...activity, at });
      const { kind: _kind, ...progress } = activity;
      const last = task.progress;
      const entry =
        !last || at - last.at >= PROGRESS_ENTRY_GAP_MS || last.message !== progress.message
          ? appendEntry(task, { kind: 'progress', at, ...progress })
          : {};
      return { ...entry, progress: { ...progress, at } };
    });
  }

  /** The task is known now: what came for it before is applied, in the order it came. */
  release(taskId: string): void {
    for (const activity of this.early.take(taskId)) this.receive(taskId, activity);
  }
}
