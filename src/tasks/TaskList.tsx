import { useMemo, useRef, useState, type FormEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { ListTodo, Pause, Play, RefreshCw, Search } from 'lucide-react';
import { useShallow } from 'zustand/react/shallow';
import { useSelection } from '../app/selection';
import { usePreferences } from '../app/preferences';
import { useNow } from '../app/clock';
import { EmptyState } from '../ui/Panel';
import { TASK_STATUSES, type TaskStatus } from '../mcp';
import { useRuntime, useTasks } from './hooks';
import { refreshTaskList, trackTaskId } from './actions';
import { useTaskListStatus } from './list-status';
import { StatusBadge } from './StatusBadge';
import { Badge } from '../ui/Badge';
import { useInbox } from '../inbox/store';
import { TaskRowTtl } from './TaskRowTtl';
import { formatMs } from './ttl';
import type { TrackedTask } from './store';

/** The floors a person can put under every poll interval (0: just what each receiver asks). */
/** The look of the small inputs in the list's toolbar. */
const compactField =
  'rounded bg-slate-100 ring-1 ring-slate-200 ring-inset dark:bg-slate-900 dark:ring-slate-700';

const MIN_INTERVALS = [0, 500, 1000, 2000, 5000, 10_000, 30_000];

type Filter = TaskStatus | 'purged' | 'all';
const filterKey = (task: TrackedTask): Filter =>
  task.lifecycle === 'purged' || task.lifecycle === 'unknown' ? 'purged' : (task.status ?? 'working');

function Row({
  task,
  active,
  now,
  needsInput,
}: {
  task: TrackedTask;
  active: boolean;
  now: number;
  needsInput: boolean;
}) {
  const select = useSelection((s) => s.select);
  return (
    <button
      type="button"
      onClick={() => select({ kind: 'task', taskId: task.taskId })}
      className={`flex h-full w-full flex-col justify-center gap-0.5 border-b border-slate-100 px-3 text-left hover:bg-slate-50 dark:border-slate-900 dark:hover:bg-slate-900 ${active ? 'bg-sky-50 dark:bg-sky-950/40' : ''}`}
      data-testid="task-row"
      data-task-id={task.taskId}
    >
      <span className="flex items-center gap-2">
        <StatusBadge status={task.status} lifecycle={task.lifecycle} />
        {needsInput && (
          <Badge tone="amber" title="The receiver is waiting for your answer">
            needs you
          </Badge>
        )}
        <span className="truncate font-mono text-xs">{task.tool ?? task.taskId.slice(0, 12)}</span>
        <span className="ml-auto text-[11px] text-slate-500 tabular-nums">
          {formatMs(now - task.firstSeenAt)}
        </span>
      </span>
      <span className="flex items-center gap-2 text-[11px] text-slate-500">
        <span className="truncate font-mono">{task.taskId}</span>
        <span className="ml-auto whitespace-nowrap">
          <TaskRowTtl task={task} />
        </span>
      </span>
    </button>
  );
}

export function TaskList() {
  const runtime = useRuntime();
  const order = useTasks((s) => s.order);
  // The map is updated in place; `version` says when to read it again.
  const version = useTasks((s) => s.version);
  const tasks = useTasks((s) => s.tasks);
  const selection = useSelection((s) => s.selection);
  const { pollingPaused, setPollingPaused, minPollIntervalMs, setMinPollIntervalMs } = usePreferences(
    useShallow((s) => ({
      pollingPaused: s.pollingPaused,
      setPollingPaused: s.setPollingPaused,
      minPollIntervalMs: s.minPollIntervalMs,
      setMinPollIntervalMs: s.setMinPollIntervalMs,
    })),
  );
  const listStatus = useTaskListStatus();
  const [filter, setFilter] = useState<Filter>('all');
  const [query, setQuery] = useState('');
  const [paste, setPaste] = useState('');
  const now = useNow();
  const inbox = useInbox((s) => s.items);
  const waitingTasks = useMemo(
    () => new Set(inbox.flatMap((i) => (i.state === 'pending' && i.relatedTaskId ? [i.relatedTaskId] : []))),
    [inbox],
  );
  const parentRef = useRef<HTMLDivElement>(null);

  const counts = useMemo(() => {
    const c: Record<string, number> = { all: order.length };
    for (const id of order) {
      const t = tasks.get(id);
      if (t) c[filterKey(t)] = (c[filterKey(t)] ?? 0) + 1;
    }
    return c;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- version stands for the map's contents
  }, [order, tasks, version]);

  const visible = useMemo(() => {
    const q = query.trim().toLowerCase();
    const list: TrackedTask[] = [];
    for (let i = order.length - 1; i >= 0; i--) {
      const t = tasks.get(order[i] ?? '');
      if (!t) continue;
      if (filter !== 'all' && filterKey(t) !== filter) continue;
      if (q && !t.taskId.toLowerCase().includes(q) && !(t.tool ?? '').toLowerCase().includes(q)) continue;
      list.push(t);
    }
    return list;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- version stands for the map's contents
  }, [order, tasks, version, filter, query]);

  // Rows are a fixed height, so a thousand tasks cost as much to draw as the dozen on screen.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: visible.length,
    getScrollElement: () => parentRef.current,
    estimateSize: () => 48,
    overscan: 8,
  });

  const submitPaste = (event: FormEvent) => {
    event.preventDefault();
    if (trackTaskId(paste)) setPaste('');
  };

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="space-y-2 border-b border-slate-200 p-2 dark:border-slate-800">
        <div className="flex items-center gap-1">
          <div className="relative flex-1">
            <Search size={12} className="absolute top-1/2 left-2 -translate-y-1/2 text-slate-400" />
            <input
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              placeholder="Search id or tool"
              aria-label="Search tasks"
              className={`w-full py-1 pr-2 pl-6 text-xs ${compactField}`}
            />
          </div>
          <select
            value={minPollIntervalMs}
            onChange={(e) => setMinPollIntervalMs(Number(e.target.value))}
            aria-label="Slowest poll: your minimum interval"
            title="Your minimum poll interval: polls never come faster than this, nor faster than each receiver asks"
            className={`px-1 py-1 text-[11px] ${compactField}`}
          >
            {MIN_INTERVALS.map((ms) => (
              <option key={ms} value={ms}>
                {ms === 0 ? 'as asked' : `≥ ${formatMs(ms)}`}
              </option>
            ))}
          </select>
          <button
            type="button"
            onClick={() => setPollingPaused(!pollingPaused)}
            className="rounded p-1 text-slate-500 hover:bg-slate-100 dark:hover:bg-slate-800"
            title={pollingPaused ? 'Resume live polling' : 'Pause live polling for every task'}
            aria-label={pollingPaused ? 'Resume polling' : 'Pause polling'}
            data-testid="pause-toggle"
          >
            {pollingPaused ? <Play size={14} /> : <Pause size={14} />}
          </button>
          <button
            type="button"
            disabled={!runtime?.api.support.list || listStatus.loading}
            onClick={() => void refreshTaskList()}
            className="rounded p-1 text-slate-500 hover:bg-slate-100 disabled:opacity-40 dark:hover:bg-slate-800"
            title={
              runtime?.api.support.list ? 'Refresh from tasks/list' : 'The receiver does not offer tasks/list'
            }
            aria-label="Refresh task list"
          >
            <RefreshCw size={14} className={listStatus.loading ? 'animate-spin' : ''} />
          </button>
        </div>
        <div className="flex flex-wrap gap-1" role="group" aria-label="Filter by status">
          {(['all', ...TASK_STATUSES, 'purged'] as Filter[]).map((f) => (
            <button
              key={f}
              type="button"
              onClick={() => setFilter(f)}
              aria-pressed={filter === f}
              className={`rounded px-1.5 py-0.5 text-[11px] ring-1 ring-inset ${filter === f ? 'bg-slate-800 text-white ring-slate-800 dark:bg-slate-200 dark:text-slate-900' : 'text-slate-600 ring-slate-200 dark:text-slate-300 dark:ring-slate-700'}`}
            >
              {f.replace('_', ' ')} {counts[f] ?? 0}
            </button>
          ))}
        </div>
        <form onSubmit={submitPaste} className="flex gap-1">
          <input
            value={paste}
            onChange={(e) => setPaste(e.target.value)}
            placeholder="Follow a task id…"
            aria-label="Task id to follow"
            className={`min-w-0 flex-1 px-2 py-1 font-mono text-xs ${compactField}`}
          />
        </form>
        {pollingPaused && (
          <p className="text-xs text-amber-700 dark:text-amber-400">Live polling is paused.</p>
        )}
        {listStatus.error && (
          <p className="text-xs text-red-600 dark:text-red-400">tasks/list: {listStatus.error.message}</p>
        )}
      </div>
      {visible.length === 0 ? (
        <EmptyState
          icon={<ListTodo size={20} />}
          title={order.length === 0 ? 'No tasks yet' : 'No task matches'}
        >
          {order.length === 0
            ? 'Run a tool as a task, or follow a task id.'
            : 'Change the filter or the search.'}
        </EmptyState>
      ) : (
        <div ref={parentRef} className="min-h-0 flex-1 overflow-y-auto" data-testid="task-list">
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualizer.getVirtualItems().map((item) => {
              const task = visible[item.index];
              if (!task) return null;
              return (
                <div
                  key={task.taskId}
                  style={{
                    position: 'absolute',
                    top: 0,
                    left: 0,
                    right: 0,
                    height: item.size,
                    transform: `translateY(${item.start}px)`,
                  }}
                >
                  <Row
                    task={task}
                    now={now}
                    needsInput={waitingTasks.has(task.taskId)}
                    active={selection.kind === 'task' && selection.taskId === task.taskId}
                  />
                </div>
              );
            })}
          </div>
        </div>
      )}
    </div>
  );
}
