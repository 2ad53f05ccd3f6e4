import { usePassiveReason } from '../../state/connection-view';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ChartNoAxesGantt, ListTodo, Pause, Play, RefreshCw, Search } from 'lucide-react';
import { useShallow } from 'zustand/react/shallow';
import { useSelection } from '../../state/selection-store';
import { usePreferences } from '../../state/preferences-store';
import { useConnection } from '../../state/connection-store';
import { useReplay } from '../../state/replay-store';
import { useObserve } from '../../state/observe-store';
import { EmptyState, Panel } from '../../ui/Panel';
import { VirtualRows } from '../../ui/VirtualRows';
import { TASK_STATUSES } from '../../mcp';
import { useTasks } from '../tasks-store';
import { refreshTaskList, trackSeenTasks, trackTaskId } from '../actions';
import { askList, askRows, useListAsk } from '../list-ask-store';
import type { ListFilter } from '../../tracker/list-filter';
import { formatMs } from '../../format/time';
import { AUTO_TRACK_PER_MINUTE } from '../../tracker/limits';
import { TaskRow } from './TaskRow';
import { DemoTraceLink } from '../../ui/DemoTraceLink';
import { preloadMarkdownWhenIdle } from '../../ui/MarkdownText';

/** Two lines of text and their padding: with the drawer open, 1024×700 still shows eight rows. */
const ROW_HEIGHT = 44;

/** The look of the small inputs in the list's toolbar. */
const compactField =
  'rounded bg-slate-100 ring-1 ring-slate-200 ring-inset dark:bg-slate-900 dark:ring-slate-700';

/** The floors a person can put under every poll interval (0: just what each receiver asks). */
const MIN_INTERVALS = [0, 500, 1000, 2000, 5000, 10_000, 30_000];

/**
 * Said when the browser cannot send polls as fast as the live tasks ask: a page gets a few connections per
 * origin, so with hundreds of tasks every poll comes a little late, fairly shared, and never early.
 */
function PollingSaturation() {
  const health = useTasks((s) => s.health);
  if (!health || health.liveTasks === 0) return null;
  const behind = health.queuedPolls > 0 && health.pollsPerSecond < 0.9 * health.demandPerSecond;
  if (!behind) return null;
  const every = health.pollsPerSecond > 0 ? (health.liveTasks / health.pollsPerSecond) * 1000 : undefined;
  return (
    <p className="text-xs text-amber-800 dark:text-amber-300" data-testid="polling-saturated">
      Polling runs slower than asked: {health.liveTasks} live tasks ask for{' '}
      {Math.round(health.demandPerSecond)} polls/s, and this browser sends about{' '}
      {Math.round(health.pollsPerSecond)}/s to the receiver ({health.slots} at a time)
      {every !== undefined ? `, so each task is polled about every ${formatMs(every)}` : ''}.
    </p>
  );
}

export function TaskList() {
  const canList = useConnection((s) => !!s.support?.list);
  const replaying = useReplay((s) => s.connectionId !== undefined);
  const observing = useObserve((s) => s.connectionId !== undefined);
  const selectOverview = useSelection((s) => s.select);
  const overviewOpen = useSelection((s) => s.selection.kind === 'overview');
  const { pollingPaused, setPollingPaused, minPollIntervalMs, setMinPollIntervalMs } = usePreferences(
    useShallow((s) => ({
      pollingPaused: s.pollingPaused,
      setPollingPaused: s.setPollingPaused,
      minPollIntervalMs: s.minPollIntervalMs,
      setMinPollIntervalMs: s.setMinPollIntervalMs,
    })),
  );
  const listStatus = useTasks((s) => s.listStatus);
  const query = useListAsk((s) => s.query);
  const [paste, setPaste] = useState('');
  // A replay or an observed session follows nothing new: the engine would refuse it, so the field says why.
  const passive = usePassiveReason();
  // The engine filters, searches and counts; the page holds the rows around those drawn. A poll that changes
  // a task's record re-renders its row, not the list.
  const list = useTasks((s) => s.list);
  const filter = list?.filter ?? 'all';
  const counts = list?.counts ?? {};
  const total = counts.all ?? 0;
  const ids = useMemo(() => {
    const rows: (string | undefined)[] = new Array<string | undefined>(list?.total ?? 0);
    list?.ids.forEach((id, i) => (rows[list.start + i] = id));
    return rows;
  }, [list]);
  const untrackedSeen = useTasks((s) => s.untrackedSeen);
  // Tasks to open: the markdown renderer their results may need is loaded while the page is idle, not on a click.
  const hasRows = ids.length > 0;
  useEffect(() => (hasRows ? preloadMarkdownWhenIdle() : undefined), [hasRows]);

  const submitPaste = (event: FormEvent) => {
    event.preventDefault();
    const submitted = paste;
    // Emptied once followed, unless another id has been typed meanwhile: that one is the person's next.
    void trackTaskId(submitted).then((tracked) => {
      if (tracked) setPaste((now) => (now === submitted ? '' : now));
    });
  };

  const selectedId = useSelection((s) => (s.selection.kind === 'task' ? s.selection.taskId : undefined));
  // The list is one Tab stop (the open task's row, or the first); up and down move between rows.
  const tabStop =
    selectedId !== undefined && list?.ids.includes(selectedId) ? selectedId : (list?.ids[0] ?? undefined);
  const iconButton =
    'rounded p-1 text-slate-600 hover:bg-slate-100 disabled:opacity-40 dark:text-slate-300 dark:hover:bg-slate-800';

  return (
    <Panel
      title={
        <>
          Tasks <span className="font-normal normal-case tabular-nums">({total})</span>
        </>
      }
      className="flex-1"
      actions={
        <>
          <select
            value={minPollIntervalMs}
            onChange={(e) => setMinPollIntervalMs(Number(e.target.value))}
            aria-label="Slowest poll: your minimum interval"
            title="Your minimum poll interval: polls never come faster than this, nor faster than each receiver asks"
            className={`px-1 py-0.5 text-[11px] ${compactField}`}
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
            className={iconButton}
            title={pollingPaused ? 'Resume live polling' : 'Pause live polling for every task'}
            aria-label={pollingPaused ? 'Resume polling' : 'Pause polling'}
            data-testid="pause-toggle"
          >
            {pollingPaused ? <Play size={14} /> : <Pause size={14} />}
          </button>
          <button
            type="button"
            disabled={!canList || listStatus.loading}
            onClick={() => void refreshTaskList()}
            className={iconButton}
            title={canList ? 'Refresh from tasks/list' : 'The receiver does not offer tasks/list'}
            aria-label="Refresh task list"
          >
            <RefreshCw size={14} className={listStatus.loading ? 'animate-spin' : ''} />
          </button>
          <button
            type="button"
            onClick={() => selectOverview({ kind: 'overview' })}
            aria-pressed={overviewOpen}
            className={`${iconButton} ${overviewOpen ? 'text-sky-700 dark:text-sky-300' : ''}`}
            title="Overview: every task's life on one time axis"
            aria-label="Overview of all tasks"
            data-testid="overview-button"
          >
            <ChartNoAxesGantt size={14} />
          </button>
        </>
      }
    >
      <div className="space-y-1.5 border-b border-slate-200 px-2 py-1.5 dark:border-slate-800">
        <div className="flex items-center gap-1">
          <div className="relative min-w-0 flex-1">
            <Search size={12} className="absolute top-1/2 left-2 -translate-y-1/2 text-slate-400" />
            <input
              value={query}
              onChange={(e) => askList({ query: e.target.value })}
              placeholder="Search id or tool"
              aria-label="Search tasks"
              className={`w-full py-1 pr-2 pl-6 text-xs ${compactField}`}
            />
          </div>
          <form onSubmit={submitPaste} className="min-w-0 flex-1">
            <input
              value={paste}
              onChange={(e) => setPaste(e.target.value)}
              placeholder="Follow a task id…"
              aria-label="Task id to follow"
              title={passive ?? 'Paste a task id and press Enter to follow it'}
              disabled={passive !== undefined}
              className={`w-full px-2 py-1 font-mono text-xs disabled:opacity-50 ${compactField}`}
            />
          </form>
        </div>
        <div className="flex flex-wrap gap-1" role="group" aria-label="Filter by status">
          {(['all', ...TASK_STATUSES, 'purged'] as ListFilter[]).map((f) => (
            <button
              key={f}
              type="button"
              onClick={() => askList({ filter: f })}
              aria-pressed={filter === f}
              className={`rounded px-1.5 py-0.5 text-[11px] ring-1 ring-inset ${filter === f ? 'bg-slate-800 text-white ring-slate-800 dark:bg-slate-200 dark:text-slate-900' : 'text-slate-700 ring-slate-200 dark:text-slate-300 dark:ring-slate-700'}`}
            >
              {f.replace('_', ' ')} {counts[f] ?? 0}
            </button>
          ))}
        </div>
        {pollingPaused && (
          <p className="text-xs text-amber-800 dark:text-amber-300">Live polling is paused.</p>
        )}
        <PollingSaturation />
        {listStatus.stopped && (
          <p className="text-xs text-amber-800 dark:text-amber-300" data-testid="list-stopped">
            {listStatus.stopped}.
          </p>
        )}
        {untrackedSeen > 0 && (
          <p className="text-xs text-amber-800 dark:text-amber-300" data-testid="untracked-seen">
            {untrackedSeen.toLocaleString()} more task ids seen in pushes, beyond the {AUTO_TRACK_PER_MINUTE}{' '}
            a minute followed on their own.{' '}
            <button type="button" className="underline" onClick={() => void trackSeenTasks()}>
              Track them
            </button>
          </p>
        )}
        {listStatus.error && (
          <p className="text-xs text-red-700 dark:text-red-400">tasks/list: {listStatus.error.message}</p>
        )}
      </div>
      {ids.length === 0 ? (
        <EmptyState icon={<ListTodo size={20} />} title={total === 0 ? 'No tasks yet' : 'No task matches'}>
          {total === 0
            ? observing
              ? 'The tasks the observed client creates appear here as they pass.'
              : 'Run a tool as a task, or follow a task id.'
            : 'Change the filter or the search.'}
          {total === 0 && !replaying && !observing && (
            <>
              {' '}
              <DemoTraceLink />
            </>
          )}
        </EmptyState>
      ) : (
        <VirtualRows
          // Another filter or search is another list, from its top.
          key={`${filter} ${list?.query ?? ''}`}
          items={ids}
          rowHeight={ROW_HEIGHT}
          onRange={askRows}
          testId="task-list"
          renderRow={(taskId) => <TaskRow taskId={taskId} tabStop={taskId === tabStop} />}
        />
      )}
    </Panel>
  );
}
