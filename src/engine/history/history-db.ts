import { unwrap, wrap, type IDBPDatabase, type IDBPTransaction } from 'idb';
import {
  forTrafficLog,
  type Normalised,
  type TaskResultSnapshot,
  type TaskSnapshot,
  type TrafficEvent,
} from '../../mcp';
import { MAX_ENTRIES, type TimelineEntry, type TrackedTask } from '../../tasks/core/store';
import type { InboxEvent } from '../messages';
import { redactForStorage, redactTrafficEvent } from './redact';
import {
  ALL_STORES,
  HISTORY_DB_NAME,
  HISTORY_DB_VERSION,
  entriesBelow,
  entriesFrom,
  receiverRange,
  sequenceBelow,
  sequenceFrom,
  taskEntriesRange,
  upgradeHistoryDb,
  type HistorySchema,
  type MetaRow,
  type StoreName,
  type TaskRow,
} from './schema';

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

export interface LoadedTask {
  record: Omit<TrackedTask, 'entries'>;
  entries: TimelineEntry[];
  snapshot?: TaskSnapshot;
  result?: Normalised<TaskResultSnapshot>;
}

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

type Db = IDBPDatabase<HistorySchema>;
type WriteTx = IDBPTransaction<HistorySchema, StoreName[], 'readwrite'>;

/** Everything queued for one receiver, folded together: one task's several changes become one plan. */
interface TaskPlan {
  taskId: string;
  record?: Omit<TrackedTask, 'entries'>;
  entryTotal?: number;
  entries: Array<[index: number, entry: TimelineEntry]>;
  snapshot?: TaskSnapshot;
  result?: Normalised<TaskResultSnapshot>;
}

interface ReceiverPlan {
  tasks: Map<string, TaskPlan>;
  traffic: TrafficEvent[];
  inbox: InboxEvent[];
  meta?: Record<string, unknown>;
}

type Job =
  | { kind: 'write'; receiver: string; write: HistoryWrite; resolve: (outcome: WriteOutcome) => void }
  | { kind: 'run'; run: () => Promise<void> };

function newMeta(): MetaRow {
  return { facts: {}, droppedTasks: 0, nextTaskSeq: 0, nextTraffic: 0, nextInbox: 0 };
}

function planFor(plans: Map<string, TaskPlan>, taskId: string): TaskPlan {
  let plan = plans.get(taskId);
  if (!plan) {
    plan = { taskId, entries: [] };
    plans.set(taskId, plan);
  }
  return plan;
}

/** Later writes win for records, snapshots and results; entries keep their own indices, so none is lost. */
function planWrites(writes: readonly HistoryWrite[]): ReceiverPlan {
  const plan: ReceiverPlan = { tasks: new Map(), traffic: [], inbox: [] };
  for (const write of writes) {
    for (const { record, newEntries, entryTotal } of write.tasks ?? []) {
      const task = planFor(plan.tasks, record.taskId);
      task.record = record;
      task.entryTotal = entryTotal;
      const first = entryTotal - newEntries.length;
      newEntries.forEach((entry, i) => task.entries.push([first + i, entry]));
    }
    for (const [taskId, snapshot] of write.snapshots ?? []) planFor(plan.tasks, taskId).snapshot = snapshot;
    for (const [taskId, result] of write.results ?? []) planFor(plan.tasks, taskId).result = result;
    if (write.traffic?.length) plan.traffic.push(...write.traffic);
    if (write.inbox?.length) plan.inbox.push(...write.inbox);
    if (write.meta) plan.meta = { ...plan.meta, ...write.meta };
  }
  return plan;
}

function isEmptyPlan(plan: ReceiverPlan): boolean {
  return plan.tasks.size === 0 && plan.traffic.length === 0 && plan.inbox.length === 0 && !plan.meta;
}

function errorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'name' in error && typeof error.name === 'string'
    ? error.name
    : undefined;
}

function errorMessage(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string')
    return error.message || errorName(error) || 'unknown error';
  return String(error);
}

/** The browser's own words when it has any; fake and some real DOMExceptions carry none. */
function quotaDetail(error: unknown): string {
  const message = errorMessage(error).replace(/\.$/, '');
  return message && message !== 'QuotaExceededError' ? message : 'nothing more could be saved';
}

/** Browsers report a full quota as a DOMException named QuotaExceededError (legacy code 22), on the request or the transaction. */
function isQuotaError(error: unknown): boolean {
  if (errorName(error) === 'QuotaExceededError') return true;
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 22;
}

function globalIndexedDB(): IDBFactory | undefined {
  try {
    return (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  } catch {
    // Some sandboxed contexts throw on the mere access.
    return undefined;
  }
}

/** The raw open, so blocked, failing and never-answering requests all end in null rather than a hang. */
function openRaw(factory: IDBFactory, name: string, timeoutMs: number): Promise<IDBDatabase | null> {
  return new Promise((resolve) => {
    let settled = false;
    const timer = setTimeout(() => finish(null), timeoutMs);
    const finish = (db: IDBDatabase | null) => {
      if (settled) {
        // Opened after we gave up: nobody will use it, and an open connection would block later upgrades.
        db?.close();
        return;
      }
      settled = true;
      clearTimeout(timer);
      resolve(db);
    };
    let request: IDBOpenDBRequest;
    try {
      request = factory.open(name, HISTORY_DB_VERSION);
    } catch {
      finish(null);
      return;
    }
    request.onupgradeneeded = (event) => {
      try {
        upgradeHistoryDb(request.result, event.oldVersion);
      } catch {
        request.transaction?.abort();
      }
    };
    // Another tab holds an older version open and does not let go: run without history rather than wait.
    request.onblocked = () => finish(null);
    request.onsuccess = () => finish(request.result);
    request.onerror = (event) => {
      event.preventDefault();
      finish(null);
    };
  });
}

/**
 * Keeps, per receiver, everything the engine observed, so a reload or a reconnect restores it. Writes are
 * queued: at most one readwrite transaction of ours runs at a time, and writes that pile up behind it go
 * together in the next one. `write` never rejects; a failure is an outcome the caller can show.
 */
export class HistoryDb {
  private readonly db: Db;
  private readonly caps: HistoryCaps;
  private readonly queue: Job[] = [];
  private pumping = false;
  /** Why the database can no longer be used, once it cannot. */
  private closedReason: string | undefined;

  private constructor(raw: IDBDatabase, caps: HistoryCaps) {
    this.caps = caps;
    raw.onversionchange = () => this.shut('another tab is upgrading or deleting the history database');
    raw.onclose = () => this.shut('the browser closed the history database');
    this.db = wrap(raw) as unknown as Db;
  }

  /** null when IndexedDB is missing or cannot be opened (private mode, blocked by another tab, a newer version). */
  static async open(options: HistoryOpenOptions = {}): Promise<HistoryDb | null> {
    const factory = options.indexedDB ?? globalIndexedDB();
    if (!factory) return null;
    const caps = { ...DEFAULT_HISTORY_CAPS };
    for (const key of Object.keys(caps) as Array<keyof HistoryCaps>) {
      const value = options.caps?.[key];
      if (value !== undefined && Number.isFinite(value)) caps[key] = Math.max(1, Math.floor(value));
    }
    const raw = await openRaw(factory, options.name ?? HISTORY_DB_NAME, options.openTimeoutMs ?? 5000);
    if (!raw) return null;
    try {
      return new HistoryDb(raw, caps);
    } catch {
      raw.close();
      return null;
    }
  }

  get available(): boolean {
    return this.closedReason === undefined;
  }

  close(): void {
    this.shut('the history database was closed');
  }

  write(receiver: string, write: HistoryWrite): Promise<WriteOutcome> {
    return new Promise((resolve) => {
      this.queue.push({ kind: 'write', receiver, write, resolve });
      this.pump();
    });
  }

  /** Everything kept for `receiver`, within the caps; an empty history when the database fails. */
  load(receiver: string): Promise<LoadedHistory> {
    return this.schedule(() => this.read(receiver)).catch(() => emptyHistory());
  }

  /** Forgets this receiver's history except the given task ids (live tasks stay); its facts are kept. */
  clear(receiver: string, keepTaskIds: readonly string[] = []): Promise<void> {
    return this.schedule(() => this.runClear(receiver, keepTaskIds));
  }

  /** Forgets one task. */
  forgetTask(receiver: string, taskId: string): Promise<void> {
    return this.schedule(async () => {
      const tx = this.transaction(['tasks', 'entries', 'results'], 'readwrite');
      this.deleteTask(tx, receiver, taskId);
      await tx.done;
    });
  }

  /** Forgets everything about a receiver, its facts too. */
  forgetReceiver(receiver: string): Promise<void> {
    return this.schedule(async () => {
      const tx = this.transaction(ALL_STORES, 'readwrite');
      const range = receiverRange(receiver);
      await Promise.all([
        tx.objectStore('tasks').delete(range),
        tx.objectStore('entries').delete(range),
        tx.objectStore('results').delete(range),
        tx.objectStore('traffic').delete(range),
        tx.objectStore('inbox').delete(range),
        tx.objectStore('meta').delete(receiver),
        tx.done,
      ]);
    });
  }

  private shut(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    try {
      this.db.close();
    } catch {
      // Already closed by the browser.
    }
  }

  private transaction<Mode extends 'readonly' | 'readwrite'>(
    stores: StoreName[],
    mode: Mode,
  ): IDBPTransaction<HistorySchema, StoreName[], Mode> {
    if (this.closedReason !== undefined) throw new Error(`history unavailable: ${this.closedReason}`);
    return this.db.transaction(stores, mode);
  }

  private schedule<T>(task: () => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: 'run', run: () => task().then(resolve, reject) });
      this.pump();
    });
  }

  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    void (async () => {
      try {
        for (let head = this.queue[0]; head; head = this.queue[0]) {
          if (head.kind === 'run') {
            this.queue.shift();
            await head.run();
            continue;
          }
          let count = 1;
          while (this.queue[count]?.kind === 'write') count++;
          const jobs = this.queue.splice(0, count) as Array<Extract<Job, { kind: 'write' }>>;
          const outcome = await this.runWrites(jobs);
          for (const job of jobs) job.resolve(outcome);
        }
      } finally {
        this.pumping = false;
      }
    })();
  }

  private unavailable(): WriteOutcome {
    return {
      ok: false,
      reason: 'unavailable',
      message: `The history database is not available: ${this.closedReason ?? 'unknown reason'}.`,
    };
  }

  private failure(error: unknown, txError: unknown): WriteOutcome {
    if (isQuotaError(error) || isQuotaError(txError)) {
      return {
        ok: false,
        reason: 'quota',
        message: `The browser's storage quota for this site is full: ${quotaDetail(isQuotaError(error) ? error : txError)}.`,
      };
    }
    if (this.closedReason !== undefined) return this.unavailable();
    return {
      ok: false,
      reason: 'error',
      message: `Saving the history failed: ${errorMessage(txError ?? error)}`,
    };
  }

  private async runWrites(
    jobs: ReadonlyArray<{ receiver: string; write: HistoryWrite }>,
  ): Promise<WriteOutcome> {
    if (this.closedReason !== undefined) return this.unavailable();
    const byReceiver = new Map<string, HistoryWrite[]>();
    for (const { receiver, write } of jobs) {
      const list = byReceiver.get(receiver);
      if (list) list.push(write);
      else byReceiver.set(receiver, [write]);
    }
    const plans: Array<[string, ReceiverPlan]> = [];
    const stores = new Set<StoreName>(['meta']);
    try {
      for (const [receiver, writes] of byReceiver) {
        const plan = planWrites(writes);
        if (isEmptyPlan(plan)) continue;
        plans.push([receiver, plan]);
        if (plan.tasks.size > 0) for (const s of ['tasks', 'entries', 'results'] as const) stores.add(s);
        if (plan.traffic.length > 0) stores.add('traffic');
        if (plan.inbox.length > 0) stores.add('inbox');
      }
    } catch (error) {
      return this.failure(error, undefined);
    }
    if (plans.length === 0) return { ok: true };

    let tx: WriteTx;
    try {
      tx = this.transaction([...stores], 'readwrite');
    } catch (error) {
      return this.failure(error, undefined);
    }
    const done = tx.done;
    done.catch(() => undefined);
    try {
      for (const [receiver, plan] of plans) await this.apply(tx, receiver, plan);
    } catch (error) {
      // Nothing of a failed write may land half-way: earlier data stays as it was.
      try {
        tx.abort();
      } catch {
        // Already aborted by the failing request.
      }
      await done.catch(() => undefined);
      return this.failure(error, tx.error);
    }
    try {
      await done;
      return { ok: true };
    } catch (error) {
      return this.failure(error, tx.error);
    }
  }

  /**
   * Puts and deletes go to the raw stores without a promise each: a failing request aborts the transaction, so
   * its `done` reports every failure, and a thousand-task write spends its time in IndexedDB, not in promises.
   */
  private async apply(tx: WriteTx, receiver: string, plan: ReceiverPlan): Promise<void> {
    const caps = this.caps;
    const meta = (await tx.objectStore('meta').get(receiver)) ?? newMeta();

    if (plan.tasks.size > 0) {
      const tasks = tx.objectStore('tasks');
      const rawTasks = unwrap(tasks);
      const entries = unwrap(tx.objectStore('entries'));
      const results = unwrap(tx.objectStore('results'));
      const plans = [...plan.tasks.values()];
      const rows = await Promise.all(plans.map((p) => tasks.get([receiver, p.taskId])));
      const now = Date.now();
      let added = false;
      plans.forEach((task, i) => {
        const existing = rows[i];
        const record = task.record ?? existing?.record;
        // A snapshot or result for a task never recorded would be an orphan no cap or load ever reaches.
        if (!record) return;
        const { taskId } = task;
        const entryTotal = task.entryTotal ?? existing?.entryTotal ?? 0;
        // Fewer entries than stored: an older copy (another tab that restored this task before it went on).
        // The stored one is newer; writing this back would undo that tab's timeline.
        if (existing && existing.entryTotal > entryTotal) return;
        const row: TaskRow = {
          receiver,
          taskId,
          seq: existing?.seq ?? meta.nextTaskSeq++,
          record: task.record ? redactForStorage(task.record) : record,
          entryTotal,
          snapshot: task.snapshot ? redactForStorage(task.snapshot) : existing?.snapshot,
          touchedAt: now,
        };
        if (!existing) added = true;
        rawTasks.put(row);
        const floor = entryTotal - caps.maxEntriesPerTask;
        if (existing) {
          if (floor > Math.max(0, existing.entryTotal - caps.maxEntriesPerTask))
            entries.delete(entriesBelow(receiver, taskId, floor));
        }
        for (const [index, entry] of task.entries) {
          if (index >= floor && index < entryTotal)
            entries.put(redactForStorage(entry), [receiver, taskId, index]);
        }
        if (task.result) results.put(redactForStorage(task.result), [receiver, taskId]);
      });
      if (added) await this.capTasks(tx, receiver, meta);
    }

    if (plan.traffic.length > 0) {
      const traffic = unwrap(tx.objectStore('traffic'));
      const skip = Math.max(0, plan.traffic.length - caps.maxTraffic);
      let key = meta.nextTraffic + skip;
      for (const event of plan.traffic.slice(skip))
        traffic.put(redactTrafficEvent(forTrafficLog(event)), [receiver, key++]);
      meta.nextTraffic += plan.traffic.length;
      if (meta.nextTraffic > caps.maxTraffic)
        traffic.delete(sequenceBelow(receiver, meta.nextTraffic - caps.maxTraffic));
    }

    if (plan.inbox.length > 0) {
      const inbox = unwrap(tx.objectStore('inbox'));
      const skip = Math.max(0, plan.inbox.length - caps.maxInbox);
      let key = meta.nextInbox + skip;
      for (const event of plan.inbox.slice(skip)) inbox.put(redactForStorage(event), [receiver, key++]);
      meta.nextInbox += plan.inbox.length;
      if (meta.nextInbox > caps.maxInbox)
        inbox.delete(sequenceBelow(receiver, meta.nextInbox - caps.maxInbox));
    }

    if (plan.meta) meta.facts = { ...meta.facts, ...redactForStorage(plan.meta) };
    unwrap(tx.objectStore('meta')).put(meta, receiver);
  }

  /** Past maxTasks, the oldest tasks that are not live go, with everything kept for them. */
  private async capTasks(tx: WriteTx, receiver: string, meta: MetaRow): Promise<void> {
    const tasks = tx.objectStore('tasks');
    let excess = (await tasks.count(receiverRange(receiver))) - this.caps.maxTasks;
    if (excess <= 0) return;
    let cursor = await tasks.index('order').openCursor(receiverRange(receiver));
    while (cursor && excess > 0) {
      const row = cursor.value;
      if (row.record.lifecycle !== 'live') {
        this.deleteTask(tx, receiver, row.taskId);
        meta.droppedTasks++;
        excess--;
      }
      cursor = await cursor.continue();
    }
  }

  private deleteTask(tx: WriteTx, receiver: string, taskId: string): void {
    unwrap(tx.objectStore('tasks')).delete([receiver, taskId]);
    unwrap(tx.objectStore('results')).delete([receiver, taskId]);
    unwrap(tx.objectStore('entries')).delete(taskEntriesRange(receiver, taskId));
  }

  private async runClear(receiver: string, keepTaskIds: readonly string[]): Promise<void> {
    const tx = this.transaction(ALL_STORES, 'readwrite');
    const done = tx.done;
    done.catch(() => undefined);
    try {
      const range = receiverRange(receiver);
      unwrap(tx.objectStore('traffic')).delete(range);
      unwrap(tx.objectStore('inbox')).delete(range);
      const keep = new Set(keepTaskIds);
      if (keep.size === 0) {
        for (const store of ['tasks', 'entries', 'results'] as const)
          unwrap(tx.objectStore(store)).delete(range);
      } else {
        const keys = await tx.objectStore('tasks').getAllKeys(range);
        for (const [, taskId] of keys) if (!keep.has(taskId)) this.deleteTask(tx, receiver, taskId);
      }
      const meta = await tx.objectStore('meta').get(receiver);
      if (meta) unwrap(tx.objectStore('meta')).put({ ...meta, droppedTasks: 0 }, receiver);
    } catch (error) {
      try {
        tx.abort();
      } catch {
        // Already aborted by the failing request.
      }
      throw error;
    }
    await done;
  }

  private async read(receiver: string): Promise<LoadedHistory> {
    const tx = this.transaction(ALL_STORES, 'readonly');
    const done = tx.done;
    done.catch(() => undefined);
    const caps = this.caps;
    const meta = (await tx.objectStore('meta').get(receiver)) ?? newMeta();
    const rows = await tx.objectStore('tasks').index('order').getAll(receiverRange(receiver));
    // Caps lowered since the rows were written: load within them anyway, live tasks first to stay.
    let excess = rows.length - caps.maxTasks;
    const kept = excess <= 0 ? rows : rows.filter((row) => row.record.lifecycle === 'live' || excess-- <= 0);
    const entries = tx.objectStore('entries');
    const results = tx.objectStore('results');
    const tasks = await Promise.all(
      kept.map(async (row): Promise<LoadedTask> => {
        const from = Math.max(0, row.entryTotal - caps.maxEntriesPerTask);
        const [list, result] = await Promise.all([
          entries.getAll(entriesFrom(receiver, row.taskId, from)),
          results.get([receiver, row.taskId]),
        ]);
        const timeline = list.slice(-caps.maxEntriesPerTask);
        const task: LoadedTask = {
          // Entries a failed write never stored count as dropped, so the two sides keep agreeing on the total.
          record: { ...row.record, droppedEntries: Math.max(0, row.entryTotal - timeline.length) },
          entries: timeline,
        };
        if (row.snapshot) task.snapshot = row.snapshot;
        if (result) task.result = result;
        return task;
      }),
    );
    const [traffic, inbox] = await Promise.all([
      tx
        .objectStore('traffic')
        .getAll(sequenceFrom(receiver, Math.max(0, meta.nextTraffic - caps.maxTraffic))),
      tx.objectStore('inbox').getAll(sequenceFrom(receiver, Math.max(0, meta.nextInbox - caps.maxInbox))),
    ]);
    await done;
    return {
      tasks,
      traffic: traffic.slice(-caps.maxTraffic),
      inbox: inbox.slice(-caps.maxInbox),
      meta: meta.facts,
      droppedTasks: meta.droppedTasks + (rows.length - kept.length),
    };
  }
}

/** How much this site stores and may store, where the browser says (navigator.storage, also in Workers). */
export async function estimateUsage(): Promise<{ usage: number; quota: number } | null> {
  try {
    const storage = (globalThis as { navigator?: { storage?: StorageManager } }).navigator?.storage;
    if (!storage?.estimate) return null;
    const estimate = await storage.estimate();
    return { usage: estimate.usage ?? 0, quota: estimate.quota ?? 0 };
  } catch {
    return null;
  }
}
