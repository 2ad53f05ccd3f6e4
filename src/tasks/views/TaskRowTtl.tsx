import { useTaskSnapshot } from '../hooks';
import { TtlCountdown } from './TtlCountdown';

export function TaskRowTtl({ taskId, purged, ended }: { taskId: string; purged: boolean; ended: boolean }) {
  const snapshot = useTaskSnapshot(taskId);
  return (
    <>
      TTL <TtlCountdown snapshot={snapshot} purged={purged} ended={ended} compact />
    </>
  );
}
