/**
 * The shapes callers hand to and get back from the history, apart from the class so the modules that plan,
 * write and read can share them without importing HistoryDb (and without an import cycle through it).
 */

import type { Normalised, TaskResultSnapshot, TaskSnapshot, TrafficEvent } from '../../mcp';
import { MAX_ENTRIES, type TimelineEntry, type TrackedTask } from '../../tracker/task-store';
import type { InboxEvent } from '../messages';
import type { RestoredTask } from '../../tracker/tracker';

export interface HistoryCaps {
  maxTasks: number;
  maxTraffic: number;
  maxInbox: number;
  maxEntriesPerTask: number;
}

export const DEFAULT_HISTORY_CAPS: HistoryCaps = {
  maxTasks: 2000,
  maxTraffic: 2000,
  maxInbox: 500,
  maxEntriesPerTask: MAX_ENTRIES,
};

export interface StoredTaskWrite {
  record: Omit<TrackedTask, 'entries'>;
  newEntries: TimelineEntry[];
  /** Entries ever appended to this task after this change (droppedEntries + entries.length in memory): gives each new entry its absolute index. */
  entryTotal: number;
}

export interface HistoryWrite {
  tasks: StoredTaskWrite[];
  snapshots: Array<[taskId: string, snapshot: TaskSnapshot]>;
  results: Array<[taskId: string, result: Normalised<TaskResultSnapshot>]>;
  traffic: TrafficEvent[];
  inbox: InboxEvent[];
  /** Receiver-level facts to keep (server description, clock offset, dialects…), merged shallowly. */
  meta?: Record<string, unknown>;
}

/** A task as history keeps it: what the tracker restores. */
export type LoadedTask = RestoredTask;

export interface LoadedHistory {
  /** In first-seen order. */
  tasks: LoadedTask[];
  /** Oldest first. */
  traffic: TrafficEvent[];
  /** Oldest first. */
  inbox: InboxEvent[];
  meta: Record<string, unknown>;
  /** Tasks the cap forgot for this receiver (since the last clear). */
  droppedTasks: number;
}

export type WriteOutcome =
  | { ok: true; bytesEstimate?: number }
  | { ok: false; reason: 'quota' | 'unavailable' | 'error'; message: string };

export interface HistoryOpenOptions {
  name?: string;
  caps?: Partial<HistoryCaps>;
  indexedDB?: IDBFactory;
  /** Some private modes leave an open request pending for ever: past this the app goes on without history. */
  openTimeoutMs?: number;
}

export function emptyHistory(): LoadedHistory {
  return { tasks: [], traffic: [], inbox: [], meta: {}, droppedTasks: 0 };
}
