import { isTerminal, type TaskSnapshot } from '../../mcp';
import { estimateClockOffset } from './ttl';

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

const SAMPLES_KEPT = 50;

/** Collects (server timestamp − local receipt) samples for one connection and keeps the offset estimate. */
export class ClockOffsetEstimator {
  private readonly samples: number[] = [];

  /** Returns the new estimate when this answer changed it, undefined otherwise. */
  note(value: TaskSnapshot, previous: TaskSnapshot | undefined, receivedAt: number): number | undefined {
    // Only a timestamp that just changed says anything about the server's "now".
    if (value.lastUpdatedAtMs === undefined || value.lastUpdatedAtMs === previous?.lastUpdatedAtMs)
      return undefined;
    const before = this.samples.length > 0 ? estimateClockOffset(this.samples) : undefined;
    this.samples.push(value.lastUpdatedAtMs - receivedAt);
    if (this.samples.length > SAMPLES_KEPT) this.samples.shift();
    const after = estimateClockOffset(this.samples);
    return after === before ? undefined : after;
  }

  get count(): number {
    return this.samples.length;
  }
}

/** After this many purge probes with the task still there, stop asking. */
export const MAX_PURGE_PROBES = 6;

/**
 * When to ask whether a terminal task was purged: once its ttl has run out (in local time), then backing off
 * from its pollInterval, doubling, up to 30 s.
 */
export function nextProbe(input: {
  expiresAtLocal: number;
  now: number;
  probes: number;
  lastGapMs: number;
  pollInterval?: number;
}): {
  delayMs: number;
  gapMs: number;
} {
  const base = input.pollInterval ?? 1000;
  const gapMs = input.probes === 0 ? base : Math.min(30_000, Math.max(base, input.lastGapMs * 2));
  return { delayMs: Math.max(0, input.expiresAtLocal - input.now) + gapMs, gapMs };
}
