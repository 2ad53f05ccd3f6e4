import type { Clock } from './tracker-types';

/** After a plain call answers, pushes for unknown tasks are still not followed for this long. */
const PLAIN_CALL_QUIET_MS = 2000;

/**
 * A plain tools/call: a receiver may run it as a task of its own (SDK 1.x's automatic task polling) and push
 * that task's status. Whether such a push is followed depends on calls the tracker never sees otherwise, so
 * their count and the quiet after them are kept here, for the push intake to ask.
 */
export class PlainCallGate {
  private calls = 0;
  private quietUntil = 0;

  constructor(private readonly clock: Clock) {}

  /** While the call is out (and a moment after), a push for an unknown task is not followed. */
  async during<T>(call: () => Promise<T>): Promise<T> {
    this.calls++;
    try {
      return await call();
    } finally {
      this.calls--;
      this.quietUntil = this.clock.now() + PLAIN_CALL_QUIET_MS;
    }
  }

  /** True while pushes for unknown tasks are not to be followed. */
  quiet(): boolean {
    return this.calls > 0 || this.clock.now() < this.quietUntil;
  }
}
