import { memo } from 'react';
import { useSelection } from '../../state/selection-store';
import { useInbox } from '../../inbox/inbox-store';
import { Badge } from '../../ui/Badge';
import { isTerminal } from '../../mcp';
import { useTasks } from '../tasks-store';
import { StatusBadge } from './StatusBadge';
import { StartedByBadge } from './StartedByBadge';
import { TaskRowTtl } from './TaskRowTtl';
import { TaskTime } from './TaskTime';
import { ProgressBar } from './ProgressBar';

/**
 * One row of the task list. It subscribes to its own task only, so a poll of another task re-renders
 * nothing here; time is drawn by leaf components on the shared clock.
 */
export const TaskRow = memo(function TaskRow({
  taskId,
  tabStop = true,
}: {
  taskId: string;
  /** The one row of the list that Tab reaches. */
  tabStop?: boolean;
}) {
  const task = useTasks((s) => s.tasks.get(taskId));
  const active = useSelection((s) => s.selection.kind === 'task' && s.selection.taskId === taskId);
  const needsInput = useInbox((s) =>
    s.items.some((i) => i.state === 'pending' && i.relatedTaskId === taskId),
  );
  const select = useSelection((s) => s.select);
  if (!task) return null;
  // While it runs, the progress takes the id's place: the row keeps its height, the id is in its title. A
  // value from before a reload is not shown as where the task stands.
  const progress =
    task.progress && !task.progress.restored && task.lifecycle === 'live' && !isTerminal(task.status)
      ? task.progress
      : undefined;
  return (
    <button
      type="button"
      onClick={() => select({ kind: 'task', taskId })}
      tabIndex={tabStop ? 0 : -1}
      aria-current={active ? 'true' : undefined}
      className={`flex h-full w-full flex-col justify-center gap-0.5 border-b border-slate-100 px-3 text-left hover:bg-slate-50 dark:border-slate-900 dark:hover:bg-slate-900 ${active ? 'bg-sky-50 dark:bg-sky-950/40' : ''}`}
      title={taskId}
      data-testid="task-row"
      data-task-id={taskId}
    >
      <span className="flex w-full min-w-0 items-center gap-2">
        {/* The badges give way before the time does: a row's time never wraps or leaves. */}
        <span className="flex min-w-0 items-center gap-1 overflow-hidden">
          <StatusBadge status={task.status} lifecycle={task.lifecycle} />
          <StartedByBadge startedBy={task.startedBy} />
          {task.otherSession && (
            <Badge title="From another session's history (another tab, or an earlier one): not polled here">
              other session
            </Badge>
          )}
          {task.dormant && (
            <Badge title="Known but not polled: past 5,000 tasks, a task is polled once you open it and press Poll now">
              not polled
            </Badge>
          )}
          {needsInput && (
            <Badge tone="amber" title="The receiver is waiting for your answer">
              needs you
            </Badge>
          )}
        </span>
        <span className="min-w-8 flex-1 truncate font-mono text-xs">{task.tool ?? taskId.slice(0, 12)}</span>
        <TaskTime task={task} className="shrink-0 text-[11px] text-slate-600 dark:text-slate-300" />
      </span>
      <span className="flex w-full min-w-0 items-center gap-2 text-[11px] text-slate-600 dark:text-slate-300">
        {progress ? (
          <span className="min-w-0 flex-1">
            <ProgressBar progress={progress} compact />
          </span>
        ) : (
          <span className="min-w-0 flex-1 truncate font-mono">{taskId}</span>
        )}
        <span className="shrink-0 whitespace-nowrap">
          <TaskRowTtl
            taskId={taskId}
            purged={task.lifecycle === 'purged'}
            ended={task.lifecycle === 'session-ended'}
          />
        </span>
      </span>
    </button>
  );
});
