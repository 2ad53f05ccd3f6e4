import { useDeferredValue, useMemo, useState } from 'react';
import { ArrowLeftRight, Ban, RefreshCw } from 'lucide-react';
import { Button } from '../../ui/Button';
import { CopyButton } from '../../ui/CopyButton';
import { EmptyState, ErrorNote } from '../../ui/Panel';
import { ErrorBoundary } from '../../ui/ErrorBoundary';
import { isTerminal, type ClassifiedError, type Normalised, type TaskResultSnapshot } from '../../mcp';
import type { TaskRuleBreak } from '../../rules/task-judge';
import { useTaskResult, useTaskRuleBreaks, useTaskSnapshot } from '../hooks';
import { useTasks } from '../tasks-store';
import { cancelTask, pollNow, refetchResult, stopResult } from '../actions';
import type { TrackedTask } from '../../tracker/task-store';
import { StatusBadge } from './StatusBadge';
import { StartedByBadge } from './StartedByBadge';
import { Timeline } from './Timeline';
import { TtlCountdown } from './TtlCountdown';
import { ResultView } from '../../results/ResultView';
import { ObservationTable } from './ObservationTable';
import { formatClock, formatMs } from '../../format/time';
import { ProgressBar } from './ProgressBar';
import { CallSummary, Headline, SessionNote } from './TaskNotes';
import { RuleBreaks } from './RuleBreaks';
import { useConnection } from '../../state/connection-store';
import { usePassiveReason } from '../../state/connection-view';
import { clientBreaksOf, useObserve } from '../../state/observe-store';
import { useShallow } from 'zustand/react/shallow';
import { pendingFor, useInbox } from '../../inbox/inbox-store';
import { InboxItemCard } from '../../inbox/InboxItemCard';
import { useSelection } from '../../state/selection-store';
import { showTaskTraffic } from '../../traffic/traffic-view-store';

function Stat({
  label,
  value,
  testId,
  title,
  wide = false,
}: {
  label: string;
  value: React.ReactNode;
  testId?: string;
  title?: string;
  /** Two columns, and the text wraps instead of being cut: for a sentence, not a figure. */
  wide?: boolean;
}) {
  return (
    <div className={`min-w-0 ${wide ? 'col-span-2' : ''}`} title={title}>
      <dt className="text-[11px] text-slate-500 uppercase">{label}</dt>
      <dd className={`text-sm tabular-nums ${wide ? 'break-words' : 'truncate'}`} data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

/**
 * Said instead of "the result is fetched the moment the task completes" where no result will come:
 * cancelled tasks have none, and a task gone or out of reach will not bring one.
 */
function noResultReason(task: TrackedTask): string | undefined {
  if (task.status === 'cancelled') return 'No result: a cancelled task has none to fetch.';
  if (task.lifecycle === 'purged') return 'No result was fetched before the receiver purged this task.';
  if (task.lifecycle === 'unknown')
    return 'The receiver does not know this task: there is no result to fetch.';
  if (task.lifecycle === 'session-ended')
    return 'No result was fetched before its session ended; the receiver does not know it in this one.';
  return undefined;
}

const lifecycleText = {
  live: 'live',
  terminal: 'ended',
  purged: 'purged',
  unknown: 'not known to the receiver',
  'session-ended': 'its session ended',
} as const;

export function TaskDetail({ taskId }: { taskId: string }) {
  const task = useTasks((s) => s.tasks.get(taskId));
  const snapshot = useTaskSnapshot(taskId);
  const result = useTaskResult(taskId);
  const connected = useConnection((s) => s.status === 'connected');
  // A replay contacts no receiver, an observed session is the client's: their cancels are the ones that passed.
  const passive = usePassiveReason() !== undefined;
  const canCancelHere = useConnection((s) => !!s.support?.cancel) && !passive;
  const waiting = useInbox(useShallow((s) => pendingFor(s.items, taskId)));
  // What was asked and answered stays on the task, after the question it answered.
  const answered = useInbox(
    useShallow((s) => s.items.filter((i) => i.relatedTaskId === taskId && i.state !== 'pending')),
  );
  const clockOffset = useTasks((s) => s.clockOffsetMs);
  // Opened at a moment (from the report card), or a mark clicked on the timeline: the observations scroll there.
  const openedAt = useSelection((s) =>
    s.selection.kind === 'task' && s.selection.taskId === taskId ? s.selection.at : undefined,
  );
  const [markAt, setMarkAt] = useState<number>();
  const focusAt = markAt ?? openedAt;
  const [cancelError, setCancelError] = useState<ClassifiedError | null>(null);
  const breaks = useTaskRuleBreaks(task, snapshot, result);
  // An observed client's breaks on this task; the card changes at most once a second.
  const clientCard = useObserve((s) => s.news?.clientCard);
  const clientBreaks = useMemo(() => clientBreaksOf(clientCard, taskId), [clientCard, taskId]);
  // A task opens in two commits: the click's own draws the header and figures; the timeline, the result and the
  // observations (most of the DOM, and the table's read of its size) follow at once in a transition, which React
  // renders in slices between frames, so the click itself never holds the page for long.
  const complete = useDeferredValue(true, false);
  // Opened from elsewhere than its row, the task's record is on its way: nothing rather than a wrong "not tracked".
  // Read only while the record is missing: the engine's answer to an open task whose row held it already
  // changes nothing here.
  const asked = useTasks((s) => !s.tasks.has(taskId) && s.list?.detail === taskId);
  if (!task && !asked) return <div className="p-4" aria-busy="true" data-testid="task-detail-coming" />;
  if (!task) {
    return (
      <EmptyState title="This task is not tracked">
        {connected
          ? `Task ${taskId} is not tracked on this connection. Paste its id in the task list to follow it.`
          : 'Connect to a receiver first.'}
      </EmptyState>
    );
  }
  const canCancel = canCancelHere && task.lifecycle === 'live' && !isTerminal(task.status);
  return (
    <div className="space-y-4 p-4" data-testid="task-detail">
      <header className="flex flex-wrap items-center gap-2">
        <StatusBadge status={task.status} lifecycle={task.lifecycle} />
        <h1 className="font-mono text-sm font-semibold break-all" data-testid="task-id">
          {taskId}
        </h1>
        <CopyButton text={taskId} title="Copy the task id" testId="copy-task-id" />
        {/* Named in lower case: the drawer's own toggle is the one button called "Traffic". */}
        <Button
          variant="ghost"
          className="text-xs"
          onClick={() => showTaskTraffic(taskId)}
          title="Open the traffic drawer on this task's messages"
          data-testid="task-traffic"
        >
          <ArrowLeftRight size={14} /> Task traffic
        </Button>
        {task.tool && <span className="font-mono text-xs text-slate-500">{task.tool}</span>}
        <StartedByBadge startedBy={task.startedBy} />
        <span className="text-xs text-slate-500">({lifecycleText[task.lifecycle]})</span>
        <div className="ml-auto">
          {canCancel && (
            <Button
              variant="danger"
              onClick={() => {
                setCancelError(null);
                void cancelTask(taskId).then(setCancelError);
              }}
            >
              <Ban size={14} /> Cancel task
            </Button>
          )}
        </div>
      </header>
      <Headline task={task} snapshot={snapshot} />
      <RuleBreaks breaks={breaks} onShow={setMarkAt} />
      <RuleBreaks breaks={clientBreaks} onShow={setMarkAt} side="client" />
      {task.progress && (
        <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
          <ProgressBar
            progress={task.progress}
            live={task.lifecycle === 'live' && !isTerminal(task.status) && !task.progress.restored}
          />
          <span className="text-[11px] text-slate-500 tabular-nums" data-testid="progress-reported">
            reported {formatClock(task.progress.at, { millis: true })}
            {task.progress.restored && ', before this page loaded: nothing reported since'}
          </span>
        </div>
      )}
      <CallSummary task={task} />
      {waiting.length > 0 && (
        <section className="space-y-2" aria-label="Waiting for you">
          <h2 className="text-xs font-semibold tracking-wide text-amber-700 uppercase dark:text-amber-400">
            The receiver is asking
          </h2>
          {waiting.map((item) => (
            <InboxItemCard key={item.key} item={item} showTask={false} />
          ))}
        </section>
      )}
      {answered.length > 0 && (
        <section className="space-y-2" aria-label="Asked and answered" data-testid="task-answered">
          <h2 className="text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-300">
            Asked and answered
          </h2>
          {answered.map((item) => (
            <InboxItemCard key={item.key} item={item} showTask={false} />
          ))}
        </section>
      )}
      <SessionNote task={task} />
      {task.dormant && (
        <p className="text-sm text-amber-700 dark:text-amber-400" data-testid="task-dormant">
          Not polled: this receiver has more tasks than Taskscope polls on its own (5,000). Poll now follows
          this one from here on.
        </p>
      )}
      {cancelError && <ErrorNote title="Cancel refused">{cancelError.message}</ErrorNote>}
      {task.lastError && task.lifecycle === 'live' && (
        <ErrorNote title={task.lastError.kind === 'rate-limited' ? 'Rate limited' : 'Polling trouble'}>
          {task.lastError.message} Next try in {formatMs(task.nextPollInMs ?? task.backoffMs)}.
        </ErrorNote>
      )}
      {task.lifecycle === 'purged' && task.lastError && (
        <p className="text-sm text-violet-700 dark:text-violet-400">{task.lastError.message}</p>
      )}
      {task.lifecycle === 'unknown' && task.lastError && (
        <ErrorNote title="Unknown task">{task.lastError.message}</ErrorNote>
      )}
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4 lg:grid-cols-8">
        <Stat
          label="TTL"
          wide
          value={
            <TtlCountdown
              snapshot={snapshot}
              purged={task.lifecycle === 'purged'}
              ended={task.lifecycle === 'session-ended'}
            />
          }
        />
        <Stat
          label="pollInterval"
          testId="poll-interval"
          title="The receiver's latest hint; the interval in force adds the user minimum, backoff and Retry-After"
          value={snapshot?.pollInterval !== undefined ? formatMs(snapshot.pollInterval) : 'none (1 s)'}
        />
        <Stat
          label="interval in force"
          title="What the tracker waits between polls now: the hint, or longer for your floor, backoff or Retry-After"
          testId="interval-in-force"
          value={
            task.lifecycle !== 'live' ? (
              '—'
            ) : (
              <span className="flex items-center gap-1">
                {task.nextPollInMs !== null ? formatMs(task.nextPollInMs) : 'paused'}
                <button
                  type="button"
                  onClick={() => pollNow(taskId)}
                  className="rounded p-0.5 text-slate-500 hover:bg-slate-100 dark:hover:bg-slate-800"
                  title="Poll now (tasks/get), whatever the interval"
                  aria-label="Poll now"
                  data-testid="poll-now"
                >
                  <RefreshCw size={12} />
                </button>
              </span>
            )
          }
        />
        <Stat label="polls" testId="poll-count" value={task.pollCount} />
        <Stat label="pushes" value={task.notificationCount} />
        <Stat
          label="warnings"
          testId="warning-count"
          title="The normaliser's warnings on the receiver's answers, and the rules it broke on this task"
          value={task.warningCount + breaks.length}
        />
        <Stat label="rate limited" value={task.rateLimitedCount} />
      </dl>
      {snapshot && snapshot.ttl !== undefined && (
        <p className="text-xs text-slate-500">
          created{' '}
          <span title={snapshot.createdAt}>
            {snapshot.createdAtMs !== undefined
              ? formatClock(snapshot.createdAtMs - clockOffset, { millis: true })
              : '?'}
          </span>{' '}
          · ttl {snapshot.ttl === null ? 'none' : formatMs(snapshot.ttl)} · shape {snapshot.shape}
          {task.entries.some(
            (e) => e.kind === 'observation' && e.ttl !== undefined && e.ttl !== snapshot.ttl,
          ) && (
            <span className="text-amber-700 dark:text-amber-400">
              {' '}
              · the receiver changed the ttl between answers
            </span>
          )}
        </p>
      )}
      {!complete && <div className="h-24" aria-busy="true" data-testid="task-detail-more" />}
      {complete && (
        <TaskDetailBody task={task} breaks={breaks} result={result} focusAt={focusAt} onMark={setMarkAt} />
      )}
    </div>
  );
}

/** The heavy part of a task's detail: its timeline, its result and the table of its observations. */
function TaskDetailBody({
  task,
  breaks,
  result,
  focusAt,
  onMark,
}: {
  task: TrackedTask;
  breaks: TaskRuleBreak[];
  result: Normalised<TaskResultSnapshot> | undefined;
  focusAt: number | undefined;
  onMark: (at: number) => void;
}) {
  const taskId = task.taskId;
  return (
    <>
      <ErrorBoundary label="The timeline">
        <Timeline task={task} breaks={breaks} onMark={onMark} />
      </ErrorBoundary>
      <section>
        <h2 className="mb-2 text-xs font-semibold tracking-wide text-slate-500 uppercase">Result</h2>
        <ErrorBoundary label="The result" raw={() => result?.value.result}>
          {!result && task.result.state === 'none' && noResultReason(task) ? (
            <p className="text-sm text-slate-500" data-testid="no-result">
              {noResultReason(task)}
            </p>
          ) : (
            <ResultView
              taskId={taskId}
              answer={result}
              state={task.result}
              onAskAgain={() => refetchResult(taskId)}
              onStop={() => stopResult(taskId)}
            />
          )}
        </ErrorBoundary>
      </section>
      <section>
        <h2 className="mb-2 text-xs font-semibold tracking-wide text-slate-500 uppercase">Observations</h2>
        <ErrorBoundary label="The observations" raw={() => task.entries.slice(-50)}>
          <ObservationTable task={task} focusAt={focusAt} />
        </ErrorBoundary>
      </section>
    </>
  );
}
