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

export function StatusBadge({ status, lifecycle }: { status: TaskStatus | null; lifecycle?: Lifecycle }) {
  if (lifecycle === 'purged')
    return (
      <Badge tone="violet" title="The receiver no longer has this task">
        purged
      </Badge>
    );
  if (lifecycle === 'session-ended')
    return (
      <Badge
        tone="neutral"
        title="It was live in a session that ended, and the receiver does not know it in this one; what was seen is kept"
      >
        session ended{status ? ` · ${status.replace('_', ' ')}` : ''}
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
