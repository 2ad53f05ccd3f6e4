import { cutText } from '../json';
import type { AuthExchange, AuthStep, AuthStepKind } from './types';

const MAX_STEPS = 200;
const MAX_STEP_TEXT = 1000;

/**
 * The sign-in's steps as the person reads them, each with the HTTP exchanges made since the step before. Kept
 * to the last MAX_STEPS: a receiver that keeps challenging must not grow it without end.
 */
export class StepLog {
  steps: AuthStep[] = [];
  /** Exchanges of the step under way, filled by the recording fetch. */
  exchanges: AuthExchange[] = [];
  private seq = 0;

  constructor(private readonly now: () => number) {}

  add(kind: AuthStepKind, ok: boolean, summary: string, extra: { why?: string; spec?: string } = {}): void {
    const exchanges = this.exchanges;
    this.exchanges = [];
    this.steps = [
      ...this.steps,
      // Summaries and reasons quote what the receiver and its authorization server sent: cut to what a line shows.
      {
        seq: ++this.seq,
        kind,
        at: this.now(),
        ok,
        summary: cutText(summary, MAX_STEP_TEXT),
        why: extra.why === undefined ? undefined : cutText(extra.why, MAX_STEP_TEXT),
        spec: extra.spec,
        exchanges,
      },
    ].slice(-MAX_STEPS);
  }
}
