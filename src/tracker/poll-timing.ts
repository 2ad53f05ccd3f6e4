/**
 * When the tracker asks a receiver next: the delay before a task's next poll, and the timing of the probes that
 * ask whether a terminal task was purged. Every wait the tracker makes is computed here.
 */

/** Used when a task's answers carry no pollInterval (the user documents give no default; 1 s is the SDK's). */
export const DEFAULT_POLL_INTERVAL_MS = 1000;

export interface IntervalInputs {
  /** The latest pollInterval this task's receiver sent, if any. */
  pollInterval?: number;
  /** The user's floor (preferences); 0 for none. */
  userMinimumMs: number;
  /** Current backoff after errors; 0 when the last answer was fine. */
  backoffMs: number;
  /** Local time before which the receiver asked us not to come back (Retry-After), if any. */
  retryAfterUntil?: number;
  now: number;
}

/**
 * How long to wait before the next poll: the largest of everything that asks us to wait. Nothing in here can
 * make a poll come sooner than the receiver's latest pollInterval.
 */
export function pollDelay(inputs: IntervalInputs): number {
  const retryAfter =
    inputs.retryAfterUntil === undefined ? 0 : Math.max(0, inputs.retryAfterUntil - inputs.now);
  return Math.max(
    inputs.pollInterval ?? DEFAULT_POLL_INTERVAL_MS,
    inputs.userMinimumMs,
    inputs.backoffMs,
    retryAfter,
  );
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
  const base = input.pollInterval ?? DEFAULT_POLL_INTERVAL_MS;
  const gapMs = input.probes === 0 ? base : Math.min(30_000, Math.max(base, input.lastGapMs * 2));
  return { delayMs: Math.max(0, input.expiresAtLocal - input.now) + gapMs, gapMs };
}
