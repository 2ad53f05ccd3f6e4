import type { DBSchema } from 'idb';
import type { Normalised, TaskResultSnapshot, TaskSnapshot, TrafficEvent } from '../../mcp';
import type { TimelineEntry, TrackedTask } from '../../tracker/task-store';
import type { InboxEvent } from '../messages';

export const HISTORY_DB_NAME = 'taskscope-history';
export const HISTORY_DB_VERSION = 1;

/** One task as kept: its record and last snapshot. The result lives apart, so a poll never rewrites it. */
export interface TaskRow {
  receiver: string;
  taskId: string;
  /** First-seen order within the receiver: what load sorts by and what the task cap drops the oldest of. */
  seq: number;
  record: Omit<TrackedTask, 'entries'>;
  /** Entries ever appended: the newest stored entry has index entryTotal − 1. */
  entryTotal: number;
  snapshot?: TaskSnapshot;
  /** Wall-clock ms of the last write, for a later sweep of receivers not seen for long. */
  touchedAt: number;
}

/** Per receiver: the caller's facts and the store's own counters. */
export interface MetaRow {
  facts: Record<string, unknown>;
  droppedTasks: number;
  nextTaskSeq: number;
  /** Traffic and inbox keys are consecutive from 0, so the oldest beyond a cap are one key range. */
  nextTraffic: number;
  nextInbox: number;
}

/** A receiver never written to reads and writes as if this row were stored. */
export function newMeta(): MetaRow {
  return { facts: {}, droppedTasks: 0, nextTaskSeq: 0, nextTraffic: 0, nextInbox: 0 };
}

/**
 * Keys lead with the receiver, so one receiver's data is one key range in every store. Only tasks keep their key
 * in the value (the order index needs it); elsewhere the key is out of line and the value is the caller's own.
 */
export interface HistorySchema extends DBSchema {
  tasks: { key: [string, string]; value: TaskRow; indexes: { order: [string, number] } };
  /** [receiver, taskId, index]: append-only, trimmed below entryTotal − maxEntriesPerTask by key range. */
  entries: { key: [string, string, number]; value: TimelineEntry };
  results: { key: [string, string]; value: Normalised<TaskResultSnapshot> };
  traffic: { key: [string, number]; value: TrafficEvent };
  inbox: { key: [string, number]; value: InboxEvent };
  meta: { key: string; value: MetaRow };
}

export type StoreName = 'tasks' | 'entries' | 'results' | 'traffic' | 'inbox' | 'meta';
export const ALL_STORES: StoreName[] = ['tasks', 'entries', 'results', 'traffic', 'inbox', 'meta'];

/**
 * Brings a database from `oldVersion` to HISTORY_DB_VERSION inside the upgrade transaction. Each version adds
 * its own `if (oldVersion < N)` step below the last, so a database several versions behind takes every step.
 */
export function upgradeHistoryDb(db: IDBDatabase, oldVersion: number): void {
  if (oldVersion < 1) {
    const tasks = db.createObjectStore('tasks', { keyPath: ['receiver', 'taskId'] });
    tasks.createIndex('order', ['receiver', 'seq'], { unique: true });
    db.createObjectStore('entries');
    db.createObjectStore('results');
    db.createObjectStore('traffic');
    db.createObjectStore('inbox');
    db.createObjectStore('meta');
  }
}

/*
 * Array keys compare element by element and a shorter prefix sorts first; any array sorts after every number
 * and string. So [r] … [r, []] spans everything under receiver r, and [r, t] … [r, t, []] one task's entries.
 */

export function receiverRange(receiver: string): IDBKeyRange {
  return IDBKeyRange.bound([receiver], [receiver, []]);
}

export function taskEntriesRange(receiver: string, taskId: string): IDBKeyRange {
  return IDBKeyRange.bound([receiver, taskId], [receiver, taskId, []]);
}

/** Entries with index < `end`. */
export function entriesBelow(receiver: string, taskId: string, end: number): IDBKeyRange {
  return IDBKeyRange.bound([receiver, taskId], [receiver, taskId, end], false, true);
}

/** Entries with index ≥ `start`. */
export function entriesFrom(receiver: string, taskId: string, start: number): IDBKeyRange {
  return IDBKeyRange.bound([receiver, taskId, start], [receiver, taskId, []]);
}

/** Traffic or inbox keys below `end`. */
export function sequenceBelow(receiver: string, end: number): IDBKeyRange {
  return IDBKeyRange.bound([receiver], [receiver, end], false, true);
}

export function sequenceFrom(receiver: string, start: number): IDBKeyRange {
  return IDBKeyRange.bound([receiver, start], [receiver, []]);
}
