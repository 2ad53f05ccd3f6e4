import { Eye, RotateCcw } from 'lucide-react';
import { Button } from '../../ui/Button';
import type { TaskSnapshot } from '../../mcp';
import { followTask, runAgain } from '../actions';
import type { TrackedTask } from '../../tracker/task-store';
import { formatClock, formatMs } from '../../format/time';
import { TaskTime } from './TaskTime';
import { compactJson } from '../../tools/call-args';
import { useConnection } from '../../state/connection-store';
import { usePassiveReason } from '../../state/connection-view';

/** The task detail's sentences: its headline, the call that made it, where it stands with sessions. */

const endedText = { completed: 'Completed', failed: 'Failed', cancelled: 'Cancelled' } as const;

/**
 * The headline: the statusMessage while the task runs; once it ended, the ending, with the last
 * statusMessage under it, labelled, so "Step 4/4" never reads as where a completed task stands.
 */
export function Headline({ task, snapshot }: { task: TrackedTask; snapshot: TaskSnapshot | undefined }) {
  const message = snapshot?.statusMessage;
  const status = task.status;
  if (status === 'completed' || status === 'failed' || status === 'cancelled')
    return (
      <div className="rounded bg-slate-50 px-3 py-2 dark:bg-slate-900">
        <p
          className="flex flex-wrap items-baseline gap-x-2 text-sm font-semibold"
          data-testid="status-headline"
        >
          {endedText[status]}
          <TaskTime task={task} className="text-xs font-normal text-slate-500" />
        </p>
        {message && (
          <p className="mt-1 text-sm">
            <span className="text-xs text-slate-500">last statusMessage: </span>
            <span className="whitespace-pre-wrap [overflow-wrap:anywhere]" data-testid="status-message">
              {message}
            </span>
          </p>
        )}
      </div>
    );
  if (!message) return null;
  return (
    <p
      className="rounded bg-slate-50 px-3 py-2 text-sm whitespace-pre-wrap [overflow-wrap:anywhere] dark:bg-slate-900"
      data-testid="status-message"
    >
      {message}
    </p>
  );
}

/** The call that created the task here: its tool, arguments and requested ttl, and "Run again". */
export function CallSummary({ task }: { task: TrackedTask }) {
  const connected = useConnection((s) => s.status === 'connected');
  // A replay or an observed client's session sends nothing: its calls are shown, not run.
  const passive = usePassiveReason();
  const call = task.call;
  if (!call) return null;
  const args = compactJson(call.args);
  return (
    <section aria-label="The call" className="space-y-1" data-testid="task-call">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <h2 className="text-xs font-semibold tracking-wide text-slate-500 uppercase">Call</h2>
        <span className="font-mono text-sm [overflow-wrap:anywhere]" data-testid="call-tool">
          {call.tool}
        </span>
        <span className="text-xs text-slate-500" data-testid="call-ttl">
          {call.ttl === undefined
            ? 'no ttl asked for (the receiver chose)'
            : `ttl asked for: ${formatMs(call.ttl)} (${call.ttl.toLocaleString()} ms)`}
        </span>
        <Button
          className="ml-auto"
          disabled={!connected || passive !== undefined}
          title={
            passive !== undefined
              ? passive
              : connected
                ? `Open ${call.tool}'s form filled with these arguments${call.ttl !== undefined ? ' and ttl' : ''}`
                : 'Connect to a receiver first'
          }
          onClick={() => runAgain(task.taskId, call)}
        >
          <RotateCcw size={14} /> Run again
        </Button>
      </div>
      <pre
        className="max-h-40 overflow-auto rounded bg-slate-50 px-3 py-2 font-mono text-xs break-all whitespace-pre-wrap dark:bg-slate-900"
        data-testid="call-args"
      >
        {args.text}
      </pre>
      {args.cut > 0 && (
        <p className="text-xs text-slate-500">
          {args.cut.toLocaleString()} more characters not shown; Run again sends them all.
        </p>
      )}
    </section>
  );
}

const shortSession = (id: string | undefined) =>
  id === undefined ? '' : id.length > 12 ? `${id.slice(0, 8)}…` : id;

/** Where the task stands with respect to sessions: another tab's, or one that ended. */
export function SessionNote({ task }: { task: TrackedTask }) {
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
        Session {shortSession(task.sessionId)} ended {formatClock(task.sessionEndedAt)}
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
