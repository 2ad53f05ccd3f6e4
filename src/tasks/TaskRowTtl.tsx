import { useTaskSnapshot } from './hooks';
import { TtlCountdown } from './TtlCountdown';
import type { TrackedTask } from './store';

export function TaskRowTtl({ task }: { task: TrackedTask }) {
  const snapshot = useTaskSnapshot(task.taskId);
  return (
    <>
      TTL <TtlCountdown snapshot={snapshot} purged={task.lifecycle === 'purged'} compact />
    </>
  );
}
