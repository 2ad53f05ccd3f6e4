import { IDBFactory } from 'fake-indexeddb';
import { afterEach, expect, vi } from 'vitest';
import type { Normalised, TaskResultSnapshot, TaskSnapshot, TrafficEvent } from '../../src/mcp';
import { newTrackedTask, type TimelineEntry, type TrackedTask } from '../../src/tracker/task-store';
import type { InboxEvent } from '../../src/engine/messages';
import {
  HistoryDb,
  type HistoryCaps,
  type HistoryWrite,
  type StoredTaskWrite,
} from '../../src/engine/history/history-db';

/** Records, entries, traffic and inbox events as the engine writes them to history, for its tests. */
export const R = 'https://receiver.example/mcp';
export const OTHER = 'http://localhost:3001/mcp';

export type Record_ = Omit<TrackedTask, 'entries'>;

export function record(taskId: string, fields: Partial<TrackedTask> = {}): Record_ {
  const { entries: _entries, ...rest } = newTrackedTask({
    taskId,
    connectionId: 1,
    origin: 'created',
    firstSeenAt: 1_000,
    ...fields,
  });
  return rest;
}

export function obs(at: number): TimelineEntry {
  return { kind: 'observation', at, source: 'poll', status: 'working', warnings: [] };
}

export function write(fields: Partial<HistoryWrite>): HistoryWrite {
  return { tasks: [], snapshots: [], results: [], traffic: [], inbox: [], ...fields };
}

/** A task change as the engine sends it: `count` new entries starting at absolute index `fromIndex`. */
export function change(rec: Record_, fromIndex: number, count: number): StoredTaskWrite {
  const newEntries = Array.from({ length: count }, (_, i) => obs(fromIndex + i));
  return { record: rec, newEntries, entryTotal: fromIndex + count };
}

export function snapshot(taskId: string, status: TaskSnapshot['status']): TaskSnapshot {
  return { taskId, status, shape: 'flat', pollInterval: 1000 };
}

export function result(text: string): Normalised<TaskResultSnapshot> {
  return {
    value: { result: { content: [{ type: 'text', text }] }, isError: false, shape: 'plain' },
    warnings: [],
  };
}

export function traffic(
  seq: number,
  message: unknown = { jsonrpc: '2.0', id: seq, method: 'tasks/get' },
): TrafficEvent {
  return {
    seq,
    at: seq,
    wallTime: 1_700_000_000_000 + seq,
    direction: 'out',
    kind: 'request',
    method: 'tasks/get',
    id: seq,
    bytes: JSON.stringify(message).length,
    message,
  };
}

export function asked(key: string): InboxEvent {
  return {
    kind: 'asked',
    request: {
      key,
      connectionId: 1,
      requestId: key,
      method: 'elicitation/create',
      params: { message: 'ok?' },
      receivedAt: 5,
    },
  };
}

const opened: HistoryDb[] = [];

/** Closes `db` with the others after the test. */
export function closeLater(db: HistoryDb): void {
  opened.push(db);
}

/** Closes every database the fixtures opened (an afterEach of each history test). */
export function closeOpened(): void {
  for (const db of opened.splice(0)) db.close();
}

/** Each history test ends with its mocks undone and its databases closed. */
export function cleanUpAfterEach(): void {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    closeOpened();
  });
}

export async function open(caps: Partial<HistoryCaps> = {}, factory: IDBFactory = new IDBFactory()) {
  const db = await HistoryDb.open({ indexedDB: factory, caps });
  expect(db).not.toBeNull();
  opened.push(db!);
  return db!;
}
