import type { TaskSnapshot } from '../mcp';
import { EFFECTIVELY_FOREVER_MS } from '../format/time';

export type TtlPhase =
  | { kind: 'unknown' }
  | { kind: 'none' }
  /** A ttl so long it is no deadline (1e300 ms): shown as such, never as a number no one can read. */
  | { kind: 'forever'; ttl: number }
  | { kind: 'counting'; remainingMs: number; expiresAtLocal: number }
  | { kind: 'expired'; expiresAtLocal: number }
  | { kind: 'purged' };

/** Expiry on the server clock: createdAt + ttl; null when the task never expires, undefined when we cannot tell. */
export function serverExpiry(
  snapshot: Pick<TaskSnapshot, 'createdAtMs' | 'ttl'> | undefined,
): number | null | undefined {
  if (!snapshot || snapshot.ttl === undefined) return undefined;
  if (snapshot.ttl === null) return null;
  if (snapshot.createdAtMs === undefined) return undefined;
  return snapshot.createdAtMs + snapshot.ttl;
}

/** Where a task's TTL stands at local time `now`, with the server clock corrected by `offsetMs`. */
export function ttlPhase(
  snapshot: Pick<TaskSnapshot, 'createdAtMs' | 'ttl'> | undefined,
  now: number,
  offsetMs: number,
  purged = false,
): TtlPhase {
  if (purged) return { kind: 'purged' };
  const expiry = serverExpiry(snapshot);
  if (expiry === undefined) return { kind: 'unknown' };
  if (expiry === null) return { kind: 'none' };
  if ((snapshot?.ttl ?? 0) >= EFFECTIVELY_FOREVER_MS)
    return { kind: 'forever', ttl: snapshot?.ttl ?? Infinity };
  const expiresAtLocal = expiry - offsetMs;
  const remainingMs = expiresAtLocal - now;
  return remainingMs > 0
    ? { kind: 'counting', remainingMs, expiresAtLocal }
    : { kind: 'expired', expiresAtLocal };
}

/**
 * The task's createdAt and TTL deadline on the local clock (the receiver's corrected by `offsetMs`, as the
 * countdown does), for drawing them beside what was observed locally. A ttl of no expiry, or one so long it
 * is no deadline, has none.
 */
export function localTaskTimes(
  snapshot: Pick<TaskSnapshot, 'createdAtMs' | 'ttl'> | undefined,
  offsetMs: number,
): { createdAt?: number; ttlDeadline?: number } {
  const created = snapshot?.createdAtMs;
  if (created === undefined || !Number.isFinite(created)) return {};
  const ttl = snapshot?.ttl;
  const deadline =
    typeof ttl === 'number' && ttl >= 0 && ttl < EFFECTIVELY_FOREVER_MS
      ? created + ttl - offsetMs
      : undefined;
  return { createdAt: created - offsetMs, ...(deadline !== undefined ? { ttlDeadline: deadline } : {}) };
}
