import type { TaskSnapshot } from '../mcp';

/** Offsets smaller than this are noise (latency, rounding) and not worth showing. */
export const NOTABLE_CLOCK_OFFSET_MS = 1000;

/**
 * Estimates (server clock − local clock) from timestamps the server wrote and the local time we received them.
 * A server timestamp is never later than the moment its answer left, so each sample is a lower bound of the
 * offset, short by that answer's age; the largest sample is the freshest, so it is the estimate.
 */
export function estimateClockOffset(samples: readonly number[]): number {
  return samples.length === 0 ? 0 : Math.max(...samples);
}

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

const DAY_MS = 86_400_000;
const YEAR_MS = 365.25 * DAY_MS;
/** A ttl or interval beyond this is no deadline a person could wait for: shown as "effectively never". */
export const EFFECTIVELY_FOREVER_MS = 100 * YEAR_MS;

/** 1:05:09, 4:09, 0:07: a countdown a person reads at a glance, never a raw millisecond number. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms >= EFFECTIVELY_FOREVER_MS) return 'effectively never';
  if (ms >= 2 * DAY_MS) return formatMs(ms);
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** Short human durations for latencies and intervals: 850 ms, 1.5 s, 2 min. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms) || ms >= EFFECTIVELY_FOREVER_MS)
    return Number.isFinite(ms) ? `${ms.toPrecision(3)} ms (effectively never)` : 'never';
  if (ms >= 2 * YEAR_MS) return `${(ms / YEAR_MS).toFixed(1).replace(/\.0$/, '')} years`;
  if (ms >= 2 * DAY_MS) return `${(ms / DAY_MS).toFixed(1).replace(/\.0$/, '')} days`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0).replace(/\.0$/, '')} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1).replace(/\.0$/, '')} min`;
  return `${(ms / 3_600_000).toFixed(1).replace(/\.0$/, '')} h`;
}

/**
 * A wall-clock time, one format everywhere on the page: 24-hour local time, with milliseconds where they
 * matter (observations, traffic, marks) and without where a person only needs the moment (session notes).
 */
export function formatClock(ms: number, options: { millis?: boolean } = {}): string {
  if (!Number.isFinite(ms)) return '—';
  const d = new Date(ms);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return options.millis ? `${time}.${pad(d.getMilliseconds(), 3)}` : time;
}

/** A date with its time, in the same 24-hour form as formatClock: 2026-12-01 09:54:30 (local time). */
export function formatDateTime(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${formatClock(ms)}`;
}
