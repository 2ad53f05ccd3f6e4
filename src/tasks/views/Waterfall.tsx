import { memo } from 'react';
import { ChartNoAxesGantt } from 'lucide-react';
import { useNow } from '../../state/clock';
import { useSelection } from '../../state/selection-store';
import { EmptyState } from '../../ui/Panel';
import { VirtualRows } from '../../ui/VirtualRows';
import { TASK_STATUSES } from '../../mcp';
import { useTasks } from '../tasks-store';
import { formatClock, formatMs } from '../../format/time';
import { useShallow } from 'zustand/react/shallow';
import { statusFill } from './StatusBadge';

/** Thin rows, so a screen holds a hundred tasks and a thousand scroll by in a few pages. */
const ROW_PX = 7;

const WaterfallRow = memo(function WaterfallRow({
  taskId,
  origin,
  span,
  now,
}: {
  taskId: string;
  origin: number;
  span: number;
  now: number;
}) {
  // A summary per task, not its record: the overview costs the page a few numbers per task.
  const task = useTasks((s) => s.overview.summaries.get(taskId));
  const select = useSelection((s) => s.select);
  if (!task) return null;
  const { start, shown } = task;
  // A task whose session ended is no longer what it last was: its bar fades, and says so.
  const said = task.sessionEnded ? `session ended · was ${shown}` : shown;
  // A live task's bar runs to now, on the page's clock.
  const end = task.live ? Math.max(now, task.end) : task.end;
  const segments = task.live
    ? task.segments.map((s, i, all) => (i === all.length - 1 ? { ...s, end } : s))
    : task.segments;
  const pct = (at: number) => Math.min(100, Math.max(0, ((at - origin) / span) * 100));
  return (
    <button
      type="button"
      onClick={() => select({ kind: 'task', taskId })}
      className="group relative block h-full w-full hover:bg-slate-100 dark:hover:bg-slate-800"
      title={`${task.tool ?? 'task'} ${taskId} — ${said}, ${formatMs(end - start)}${task.lastPollAt !== undefined ? `; last polled ${formatMs(Math.max(0, now - task.lastPollAt))} ago` : ''}`}
      aria-label={`Task ${taskId}, ${said}`}
      data-testid="waterfall-bar"
      data-task-id={taskId}
      data-status={shown}
      data-session-ended={task.sessionEnded}
    >
      {segments.length === 0 ? (
        <span
          className="absolute inset-y-px bg-slate-300 dark:bg-slate-700"
          style={{ left: `${pct(start)}%`, width: `${Math.max(0.2, pct(end) - pct(start))}%` }}
        />
      ) : (
        segments.map((s, i) => (
          <span
            key={i}
            className={`absolute inset-y-px ${statusFill[s.status]}${task.sessionEnded ? ' opacity-40' : ''}`}
            style={{ left: `${pct(s.start)}%`, width: `${Math.max(0.2, pct(s.end) - pct(s.start))}%` }}
          />
        ))
      )}
    </button>
  );
});

/** Where the axis is labelled, as shares of its length. */
const TICKS = [0, 0.25, 0.5, 0.75, 1];

/**
 * The axis under the overview's header: the first task's start as a clock time, then the time since it at each
 * quarter, to now while a task is live or to the last task's end once none is.
 */
function WaterfallAxis({ origin, span, live }: { origin: number; span: number; live: boolean }) {
  const label = (share: number) =>
    share === 0 ? formatClock(origin) : share === 1 && live ? 'now' : `+${formatMs(span * share)}`;
  return (
    <div
      className="relative h-5 border-b border-slate-200 text-[11px] text-slate-500 tabular-nums dark:border-slate-800"
      data-testid="waterfall-axis"
      aria-label={`Time axis: from ${formatClock(origin)}, the first task's start, over ${formatMs(span)}${live ? ' to now' : ' to the last task’s end'}`}
    >
      {TICKS.map((share) => (
        <span
          key={share}
          className={`absolute top-0 border-l border-slate-300 pl-1 whitespace-nowrap dark:border-slate-700 ${share === 1 ? '-translate-x-full border-r border-l-0 pr-1 pl-0' : share > 0 ? '-translate-x-1/2' : ''}`}
          style={{ left: `${share * 100}%` }}
          data-testid="waterfall-tick"
        >
          {label(share)}
        </span>
      ))}
    </div>
  );
}

/**
 * Every tracked task's life on one shared time axis: one thin status bar per task, oldest at the top,
 * virtualised, click a bar to open the task. The axis runs from the first task's start to now while any task
 * is live, and to the last task's end once none is, so ended tasks fill the width instead of its left edge.
 */
export function Waterfall() {
  const order = useTasks((s) => s.overview.order);
  const { origin, lastEnd, live } = useTasks(
    useShallow(({ overview: s }) => {
      let first = Infinity;
      let last = -Infinity;
      let anyLive = false;
      for (const task of s.summaries.values()) {
        first = Math.min(first, task.start);
        last = Math.max(last, task.end);
        anyLive ||= task.live;
      }
      return { origin: first, lastEnd: last, live: anyLive };
    }),
  );
  // The axis moves once a second: rows (memoised on now and span) redraw then, not on every clock tick.
  const now = Math.ceil(useNow() / 1000) * 1000;
  if (order.length === 0 || !Number.isFinite(origin)) {
    return (
      <EmptyState icon={<ChartNoAxesGantt size={24} />} title="No tasks yet">
        Run a tool as a task; every task&apos;s life shows here on one time axis.
      </EmptyState>
    );
  }
  const span = Math.max(1000, (live ? now : lastEnd) - origin);
  return (
    <div className="flex h-full flex-col p-4" data-testid="waterfall">
      <header className="mb-2 flex flex-wrap items-center gap-3 text-xs text-slate-500">
        <h1 className="text-sm font-semibold text-slate-800 dark:text-slate-100">
          Overview: {order.length} tasks
        </h1>
        {[...TASK_STATUSES, 'purged' as const].map((status) => (
          <span key={status} className="flex items-center gap-1">
            <span className={`inline-block h-2 w-3 rounded-sm ${statusFill[status]}`} />
            {status.replace('_', ' ')}
          </span>
        ))}
      </header>
      <WaterfallAxis origin={origin} span={span} live={live} />
      <VirtualRows
        items={order}
        rowHeight={ROW_PX}
        overscan={20}
        testId="waterfall-scroll"
        renderRow={(taskId) => <WaterfallRow taskId={taskId} origin={origin} span={span} now={now} />}
      />
    </div>
  );
}
