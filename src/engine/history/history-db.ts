import { wrap, type IDBPDatabase, type IDBPTransaction } from 'idb';
import { clearReceiver, deleteReceiver } from './forget';
import {
  emptyHistory,
  type HistoryCaps,
  type HistoryOpenOptions,
  type HistoryWrite,
  type LoadedHistory,
  type WriteOutcome,
} from './history-types';
import { readHistory } from './load';
import { globalIndexedDB, openRaw, resolveCaps } from './open';
import { ALL_STORES, HISTORY_DB_NAME, type HistorySchema, type StoreName } from './schema';
import { failureOutcome, unavailableOutcome } from './write-outcome';
import { planReceivers } from './write-plan';
import { applyPlan, deleteTask, type WriteTx } from './write-tx';

export {
  DEFAULT_HISTORY_CAPS,
  emptyHistory,
  type HistoryCaps,
  type HistoryOpenOptions,
  type HistoryWrite,
  type LoadedHistory,
  type LoadedTask,
  type StoredTaskWrite,
  type WriteOutcome,
} from './history-types';

type Db = IDBPDatabase<HistorySchema>;

type Job =
  | { kind: 'write'; receiver: string; write: HistoryWrite; resolve: (outcome: WriteOutcome) => void }
  | { kind: 'run'; run: () => Promise<void> };

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
    const caps = resolveCaps(options.caps);
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
    return this.schedule(async () =>
      readHistory(this.transaction(ALL_STORES, 'readonly'), receiver, this.caps),
    ).catch(() => emptyHistory());
  }

  /** Forgets this receiver's history except the given task ids (live tasks stay); its facts are kept. */
  clear(receiver: string, keepTaskIds: readonly string[] = []): Promise<void> {
    return this.schedule(async () =>
      clearReceiver(this.transaction(ALL_STORES, 'readwrite'), receiver, keepTaskIds),
    );
  }

  /** Forgets one task. */
  forgetTask(receiver: string, taskId: string): Promise<void> {
    return this.schedule(async () => {
      const tx = this.transaction(['tasks', 'entries', 'results'], 'readwrite');
      deleteTask(tx, receiver, taskId);
      await tx.done;
    });
  }

  /** Forgets everything about a receiver, its facts too. */
  forgetReceiver(receiver: string): Promise<void> {
    return this.schedule(async () => deleteReceiver(this.transaction(ALL_STORES, 'readwrite'), receiver));
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

  private async runWrites(
    jobs: ReadonlyArray<{ receiver: string; write: HistoryWrite }>,
  ): Promise<WriteOutcome> {
    if (this.closedReason !== undefined) return unavailableOutcome(this.closedReason);
    let planned: ReturnType<typeof planReceivers>;
    try {
      planned = planReceivers(jobs);
    } catch (error) {
      return failureOutcome(error, undefined, this.closedReason);
    }
    const { plans, stores } = planned;
    if (plans.length === 0) return { ok: true };

    let tx: WriteTx;
    try {
      tx = this.transaction([...stores], 'readwrite');
    } catch (error) {
      return failureOutcome(error, undefined, this.closedReason);
    }
    const done = tx.done;
    done.catch(() => undefined);
    try {
      for (const [receiver, plan] of plans) await applyPlan(tx, receiver, plan, this.caps);
    } catch (error) {
      // Nothing of a failed write may land half-way: earlier data stays as it was.
      try {
        tx.abort();
      } catch {
        // Already aborted by the failing request.
      }
      await done.catch(() => undefined);
      return failureOutcome(error, tx.error, this.closedReason);
    }
    try {
      await done;
      return { ok: true };
    } catch (error) {
      return failureOutcome(error, tx.error, this.closedReason);
    }
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
