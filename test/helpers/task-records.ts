import type { TrafficEvent } from '../../src/mcp';
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

/**
 * A traffic log in the making: each call gives one request of ours and the receiver's answer to it, paired as
 * the traffic tap pairs them (seqs and wall times counting up from 1001 per log).
 */
export function trafficExchanges() {
  let seq = 0;
  return (method: string, params: unknown, answer: unknown, extra: Partial<TrafficEvent> = {}) => {
    const request: TrafficEvent = {
      seq: ++seq,
      at: seq,
      wallTime: 1000 + seq,
      direction: 'out',
      kind: 'request',
      method,
      bytes: 10,
      message: { jsonrpc: '2.0', id: seq, method, params },
    };
    const reply: TrafficEvent = {
      seq: ++seq,
      at: seq,
      wallTime: 1000 + seq,
      direction: 'in',
      kind: 'response',
      method,
      bytes: 10,
      requestSeq: request.seq,
      message: answer,
      ...extra,
    };
    return [request, reply];
  };
}
