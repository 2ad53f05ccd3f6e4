import type { ObservationEntry } from '../../src/tracker/task-store';

/** A task record's observation as a poll leaves it: sent 10 ms before `at`, no warnings, unless `over` says. */
export const observation = (
  at: number,
  status: ObservationEntry['status'],
  over: Partial<ObservationEntry> = {},
): ObservationEntry => ({
  kind: 'observation',
  at,
  source: 'poll',
  sentAt: at - 10,
  latencyMs: 10,
  status,
  warnings: [],
  ...over,
});
