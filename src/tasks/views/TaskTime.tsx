import { useNow } from '../../state/clock';
import { useTaskSnapshot } from '../hooks';
import { useTasks } from '../tasks-store';
import { describeRowTime, endedAt, rowTime, type RowTime } from '../../tracker/row-time';
import { localTaskTimes } from '../../tracker/ttl';
import { formatClock } from '../../format/time';
import type { TrackedTask } from '../../tracker/task-store';

const basisText = {
  server: "from the receiver's createdAt to its lastUpdatedAt when it ended",
  created: "from the receiver's createdAt (corrected to this clock) to the first answer saying it ended",
  'first-seen': 'from when Taskscope first saw it to the first answer saying it ended',
} as const;

function explain(time: RowTime): string {
  switch (time.kind) {
    case 'took':
      return `How long the task took: ${basisText[time.basis]}`;
    case 'ended-unseen':
      return `It had ended before Taskscope first saw it (${formatClock(time.at)}), and the receiver gave no createdAt: how long it took is unknown`;
    case 'age':
      return time.basis === 'created'
        ? `Age: since the receiver's createdAt (corrected to this clock), ${formatClock(time.since)}`
        : `Age: since Taskscope first saw it, ${formatClock(time.since)}`;
    case 'seen':
      return 'Not live and not ended (its session ended, or it is gone): how long it was watched';
  }
}

/** Only the age ticks, so ended tasks' rows never re-render with the clock. */
function Age({ time }: { time: RowTime }) {
  const now = useNow();
  return <>{describeRowTime(time, now)}</>;
}

/** "took 4.8 s" for an ended task, "age 12 s" for a live one: the number always says what it is. */
export function TaskTime({ task, className = '' }: { task: TrackedTask; className?: string }) {
  const snapshot = useTaskSnapshot(task.taskId);
  const offset = useTasks((s) => s.clockOffsetMs);
  const time = rowTime(task, {
    createdAt: localTaskTimes(snapshot, offset).createdAt,
    serverCreatedAtMs: snapshot?.createdAtMs,
    serverLastUpdatedAtMs: snapshot?.lastUpdatedAtMs,
    endedAt: endedAt(task.entries),
    lastSeenAt: task.entries.at(-1)?.at,
  });
  return (
    <span
      className={`whitespace-nowrap tabular-nums ${className}`}
      title={explain(time)}
      data-testid="task-time"
      data-kind={time.kind}
    >
      {time.kind === 'age' ? <Age time={time} /> : describeRowTime(time, 0)}
    </span>
  );
}
