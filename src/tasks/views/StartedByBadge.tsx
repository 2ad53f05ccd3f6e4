import { Badge } from '../../ui/Badge';
import type { TrackedTask } from '../../tracker/task-store';

/** Says that the report card's check, not the person, created the task: on its row and in its detail. */
export function StartedByBadge({ startedBy }: { startedBy: TrackedTask['startedBy'] }) {
  if (startedBy !== 'check') return null;
  return (
    <Badge
      tone="violet"
      title="Started by the report card's check (Check this receiver), not by a run of yours"
      testId="started-by-check"
    >
      check
    </Badge>
  );
}
