import { isTerminal, type TaskSnapshot } from '../mcp';

/**
 * What we know after one more answer: the new snapshot, except that an unusable status keeps the old one, a
 * terminal status never changes, and fields the answer lacked (createdAt, ttl) keep their last good value.
 */
export function mergeSnapshot(previous: TaskSnapshot | undefined, value: TaskSnapshot): TaskSnapshot {
  let status = value.status ?? previous?.status ?? null;
  if (previous && isTerminal(previous.status) && status !== previous.status) status = previous.status;
  return {
    ...value,
    status,
    createdAt: value.createdAt ?? previous?.createdAt,
    createdAtMs: value.createdAtMs ?? previous?.createdAtMs,
    ttl: value.ttl === undefined ? previous?.ttl : value.ttl,
  };
}
