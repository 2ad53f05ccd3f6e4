import { useState } from 'react';
import { Ban, Copy, Eye, RefreshCw } from 'lucide-react';
import { Button } from '../../ui/Button';
import { EmptyState, ErrorNote } from '../../ui/Panel';
import { ErrorBoundary } from '../../ui/ErrorBoundary';
import { isTerminal, type ClassifiedError } from '../../mcp';
import { useTaskResult, useTaskSnapshot } from '../hooks';
import { useTasks } from '../store';
import { cancelTask, followTask, pollNow, refetchResult, stopResult } from '../actions';
import type { TrackedTask } from '../core/store';
import { StatusBadge } from './StatusBadge';
import { Timeline } from './Timeline';
import { TtlCountdown } from './TtlCountdown';
import { ResultView } from '../../results/ResultView';
import { ObservationTable } from './ObservationTable';
import { formatMs } from '../core/ttl';
import { useConnection } from '../../state/connection';
import { useShallow } from 'zustand/react/shallow';
import { pendingFor, useInbox } from '../../inbox/store';
import { InboxItemCard } from '../../inbox/InboxItemCard';

function Stat({
  label,
  value,
  testId,
  title,
}: {
  label: string;
  value: React.ReactNode;
  testId?: string;
  title?: string;
}) {
  return (
    <div className="min-w-0" title={title}>
      <dt className="text-[11px] text-slate-500 uppercase">{label}</dt>
      <dd className="truncate text-sm tabular-nums" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

const lifecycleText = {
  live: 'live',
  terminal: 'ended',
  purged: 'purged',
  unknown: 'not known to the receiver',
  'session-ended': 'its session ended',
} as const;

const shortSession = (id: string | undefined) =>
  id === undefined ? '' : id.length > 12 ? `${id.slice(0, 8)}…` : id;

/** Where the task stands with respect to sessions: another tab's, or one that ended. */
function SessionNote({ task }: { task: TrackedTask }) {
  const connected = useConnection((s) => s.status === 'connected');
  if (task.otherSession && task.lifecycle === 'session-ended')
    return (
      <div
        className="rounded border border-slate-200 bg-slate-50 px-3 py-2 text-sm dark:border-slate-700 dark:bg-slate-900"
        data-testid="other-session"
      >
        This task belongs to another session ({shortSession(task.sessionId)}), and the receiver does not know
        it in this one: what you see is its stored history.
      </div>
    );
  if (task.otherSession)
    return (
      <div
        className="flex flex-wrap items-center gap-2 rounded border border-slate-200 bg-slate-50 px-3 py-2 text-sm dark:border-slate-700 dark:bg-slate-900"
        data-testid="other-session"
      >
        <span>
          This task belongs to another session ({shortSession(task.sessionId)}), perhaps another tab&apos;s:
          what you see is its stored history, not polled here.
        </span>
        {connected && task.lifecycle === 'live' && (
          <Button variant="outline" onClick={() => followTask(task.taskId)}>
            <Eye size={14} /> Follow it here
          </Button>
        )}
      </div>
    );
  if (task.sessionEndedAt === undefined) return null;
  return (
    <div
      className="flex flex-wrap items-center gap-2 rounded border border-slate-200 bg-slate-50 px-3 py-2 text-sm dark:border-slate-700 dark:bg-slate-900"
      data-testid="session-ended"
    >
      <span>
        Session {shortSession(task.sessionId)} ended {new Date(task.sessionEndedAt).toLocaleTimeString()}
        {task.lifecycle === 'session-ended'
          ? ': the receiver does not know this task in the current session. What was seen is kept.'
          : '.'}
      </span>
      {connected && task.lifecycle === 'session-ended' && (
        <Button variant="ghost" onClick={() => followTask(task.taskId)}>
          <Eye size={14} /> Ask again
        </Button>
      )}
    </div>
  );
}

export function TaskDetail({ taskId }: { taskId: string }) {
  const task = useTasks((s) => s.tasks.get(taskId));
  const snapshot = useTaskSnapshot(taskId);
  const result = useTaskResult(taskId);
  const connected = useConnection((s) => s.status === 'connected');
  const canCancelHere = useConnection((s) => !!s.support?.cancel);
  const waiting = useInbox(useShallow((s) => pendingFor(s.items, taskId)));
  const [cancelError, setCancelError] = useState<ClassifiedError | null>(null);
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
        <Button
          variant="ghost"
          onClick={() => void navigator.clipboard?.writeText(taskId)}
          title="Copy the task id"
        >
          <Copy size={12} />
        </Button>
        {task.tool && <span className="font-mono text-xs text-slate-500">{task.tool}</span>}
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
      {snapshot?.statusMessage && (
        <p
          className="rounded bg-slate-50 px-3 py-2 text-sm whitespace-pre-wrap dark:bg-slate-900"
          data-testid="status-message"
        >
          {snapshot.statusMessage}
        </p>
      )}
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
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4 lg:grid-cols-7">
        <Stat label="TTL" value={<TtlCountdown snapshot={snapshot} purged={task.lifecycle === 'purged'} />} />
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
        <Stat label="warnings" value={task.warningCount} />
        <Stat label="rate limited" value={task.rateLimitedCount} />
      </dl>
      {snapshot && snapshot.ttl !== undefined && (
        <p className="text-xs text-slate-500">
          created {snapshot.createdAt ?? '?'} · ttl {snapshot.ttl === null ? 'none' : formatMs(snapshot.ttl)}{' '}
          · shape {snapshot.shape}
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
      <ErrorBoundary label="The timeline">
        <Timeline task={task} />
      </ErrorBoundary>
      <section>
        <h2 className="mb-2 text-xs font-semibold tracking-wide text-slate-500 uppercase">Result</h2>
        <ErrorBoundary label="The result" raw={() => result?.value.result}>
          <ResultView
            taskId={taskId}
            answer={result}
            state={task.result}
            onAskAgain={() => refetchResult(taskId)}
            onStop={() => stopResult(taskId)}
          />
        </ErrorBoundary>
      </section>
      <section>
        <h2 className="mb-2 text-xs font-semibold tracking-wide text-slate-500 uppercase">Observations</h2>
        <ErrorBoundary label="The observations" raw={() => task.entries.slice(-50)}>
          <ObservationTable task={task} />
        </ErrorBoundary>
      </section>
    </div>
  );
}
