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
