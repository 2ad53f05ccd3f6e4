import { useTaskSnapshot } from '../hooks';
import { TtlCountdown } from './TtlCountdown';

export function TaskRowTtl({ taskId, purged }: { taskId: string; purged: boolean }) {
  const snapshot = useTaskSnapshot(taskId);
  return (
    <>
      TTL <TtlCountdown snapshot={snapshot} purged={purged} compact />
    </>
  );
}
