import { Badge, type Tone } from '../../ui/Badge';
import type { TaskStatus } from '../../mcp';
import type { Lifecycle } from '../../tracker/task-store';

export const statusTone: Record<TaskStatus, Tone> = {
  working: 'blue',
  input_required: 'amber',
  completed: 'green',
  failed: 'red',
  cancelled: 'neutral',
};

/** Fill colours for the timeline bar, matching the badges. */
export const statusFill: Record<TaskStatus | 'purged', string> = {
  working: 'bg-st-working',
  input_required: 'bg-st-input',
  completed: 'bg-st-completed',
  failed: 'bg-st-failed',
  cancelled: 'bg-st-cancelled',
  purged: 'bg-st-purged',
};

const ENDED = new Set<TaskStatus | null>(['completed', 'failed', 'cancelled']);

/**
 * The task's status as a badge. Outcome first: a task that ended and was purged later keeps its ending as
 * its badge, with "purged" beside it; only a task gone before it ended shows "purged" alone.
 */
export function StatusBadge({ status, lifecycle }: { status: TaskStatus | null; lifecycle?: Lifecycle }) {
  if (lifecycle === 'purged' && status && ENDED.has(status))
    return (
      <>
        <Badge tone={statusTone[status]}>{status}</Badge>
        <span data-testid="purged-marker">
          <Badge tone="violet" title="The receiver no longer has this task (what was seen is kept)">
            purged
          </Badge>
        </span>
      </>
    );
  if (lifecycle === 'purged')
    return (
      <Badge
        tone="violet"
        title={`The receiver no longer has this task; it was last seen ${status ? status.replace('_', ' ') : 'with no status'}, before it ended`}
      >
        purged{status ? ` · was ${status.replace('_', ' ')}` : ''}
      </Badge>
    );
  if (lifecycle === 'session-ended')
    return (
      <Badge
        tone="neutral"
        title="It was live in a session that ended, and the receiver does not know it in this one; what was seen is kept"
      >
        {/* Not "working": nothing works on it any more; what it was last seen as is history. */}
        session ended{status ? ` · was ${status.replace('_', ' ')}` : ''}
      </Badge>
    );
  if (lifecycle === 'unknown')
    return (
      <Badge tone="neutral" title="The receiver does not know this task id">
        unknown
      </Badge>
    );
  if (!status) return <Badge>…</Badge>;
  return (
    <Badge tone={statusTone[status]}>
      {status === 'working' && (
        <span className="h-1.5 w-1.5 animate-pulse rounded-full bg-current" aria-hidden />
      )}
      {status.replace('_', ' ')}
    </Badge>
  );
}
