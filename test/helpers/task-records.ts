import type { ReportInput } from '../../src/rules/evidence';
import { newTrackedTask, type ObservationEntry, type TimelineEntry } from '../../src/tracker/task-store';

/** Records as the tracker leaves them, for tests that judge or draw them without a receiver. */

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

/** What the report card reads of a 2025-11-25 receiver that tracked one task, `t1`, with these entries. */
export const oneTaskReport = (entries: TimelineEntry[]): ReportInput => ({
  receiver: { url: 'http://127.0.0.1:1/mcp', era: '2025-11-25' },
  support: { list: true, cancel: true, toolCall: true },
  tools: [],
  tasks: [
    { ...newTrackedTask({ taskId: 't1', connectionId: 1, origin: 'created', firstSeenAt: 0 }), entries },
  ],
  results: new Map(),
  traffic: [],
  clockOffsetMs: 0,
  clockSamples: 1,
  now: 10_000,
});
