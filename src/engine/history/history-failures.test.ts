import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import {
  R,
  OTHER,
  change,
  closeLater,
  cleanUpAfterEach,
  obs,
  open,
  record,
  snapshot,
  traffic,
  write,
} from '../../../test/helpers/history-fixtures';

cleanUpAfterEach();
import type { TaskSnapshot } from '../../mcp';
import { HistoryDb, estimateUsage } from './history-db';
import { HISTORY_DB_NAME } from './schema';

describe('HistoryDb failures', () => {
  it('a put that throws QuotaExceededError resolves reason quota, and what was written before stays', async () => {
    const db = await open();
    await db.write(R, write({ tasks: [change(record('a'), 0, 2)], traffic: [traffic(1)] }));
    const put = IDBObjectStore.prototype.put;
    vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, ...args) {
      if (this.name === 'entries')
        throw new DOMException('Quota exceeded for this origin', 'QuotaExceededError');
      return put.apply(this, args);
    });
    const outcome = await db.write(
      R,
      write({
        tasks: [change(record('a', { pollCount: 9 }), 2, 1), change(record('b'), 0, 1)],
        traffic: [traffic(2)],
      }),
    );
    expect(outcome).toEqual({
      ok: false,
      reason: 'quota',
      message: "The browser's storage quota for this site is full: Quota exceeded for this origin.",
    });
    vi.restoreAllMocks();
    const loaded = await db.load(R);
    // Nothing of the failed write landed, not even the puts before the failing one.
    expect(loaded.tasks.map((t) => t.record.taskId)).toEqual(['a']);
    expect(loaded.tasks[0]!.record.pollCount).toBe(0);
    expect(loaded.tasks[0]!.entries).toHaveLength(2);
    expect(loaded.traffic.map((e) => e.seq)).toEqual([1]);
    expect(await db.write(R, write({ traffic: [traffic(3)] }))).toEqual({ ok: true });
  });

  it('a transaction the browser aborts with QuotaExceededError resolves reason quota', async () => {
    const db = await open();
    await db.write(R, write({ traffic: [traffic(1)] }));
    const put = IDBObjectStore.prototype.put;
    vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, ...args) {
      const request = put.apply(this, args);
      // How a browser says it at commit: the transaction aborts, its error a QuotaExceededError.
      const tx = this.transaction as IDBTransaction & { _abort?: (name: string) => void };
      expect(tx._abort).toBeTypeOf('function');
      tx._abort!('QuotaExceededError');
      return request;
    });
    const outcome = await db.write(R, write({ traffic: [traffic(2)] }));
    expect(outcome.ok).toBe(false);
    expect(outcome.ok === false && outcome.reason).toBe('quota');
    expect(outcome.ok === false && outcome.message).toMatch(
      /^The browser's storage quota for this site is full: /,
    );
    vi.restoreAllMocks();
    expect((await db.load(R)).traffic.map((e) => e.seq)).toEqual([1]);
  });

  it('any other failure resolves reason error, never rejects', async () => {
    const db = await open();
    const outcome = await db.write(R, write({ meta: { fn: () => 1 } }));
    expect(outcome).toMatchObject({ ok: false, reason: 'error' });
  });

  it('after close, writes resolve unavailable and loads an empty history', async () => {
    const db = await open();
    await db.write(R, write({ traffic: [traffic(1)] }));
    db.close();
    expect(db.available).toBe(false);
    expect(await db.write(R, write({ traffic: [traffic(2)] }))).toMatchObject({
      ok: false,
      reason: 'unavailable',
    });
    expect(await db.load(R)).toEqual({ tasks: [], traffic: [], inbox: [], meta: {}, droppedTasks: 0 });
    await expect(db.clear(R)).rejects.toThrow(/unavailable/);
  });

  it('lets another tab delete or upgrade the database, and says unavailable afterwards', async () => {
    const factory = new IDBFactory();
    const db = await open({}, factory);
    await new Promise<void>((resolve, reject) => {
      const request = factory.deleteDatabase(HISTORY_DB_NAME);
      request.onsuccess = () => resolve();
      request.onerror = () => reject(request.error);
      request.onblocked = () => reject(new Error('blocked'));
    });
    expect(await db.write(R, write({ traffic: [traffic(1)] }))).toMatchObject({
      ok: false,
      reason: 'unavailable',
    });
  });
});

describe('HistoryDb.open', () => {
  it('is null when there is no IndexedDB', async () => {
    vi.stubGlobal('indexedDB', undefined);
    expect(await HistoryDb.open()).toBeNull();
  });

  it('is null when the open request fails (a newer version of the app made the database)', async () => {
    const factory = new IDBFactory();
    await new Promise<void>((resolve) => {
      const request = factory.open(HISTORY_DB_NAME, 7);
      request.onsuccess = () => {
        request.result.close();
        resolve();
      };
    });
    expect(await HistoryDb.open({ indexedDB: factory })).toBeNull();
  });

  it('is null when opening throws (a browser that refuses storage)', async () => {
    const factory = {
      open: () => {
        throw new DOMException('denied', 'SecurityError');
      },
    } as unknown as IDBFactory;
    expect(await HistoryDb.open({ indexedDB: factory })).toBeNull();
  });

  it('is null when the open request never answers', async () => {
    const factory = { open: () => ({}) } as unknown as IDBFactory;
    expect(await HistoryDb.open({ indexedDB: factory, openTimeoutMs: 20 })).toBeNull();
  });

  it('uses the global indexedDB and its default name when given none', async () => {
    const db = await HistoryDb.open();
    expect(db).not.toBeNull();
    closeLater(db!);
    await db!.write(R, write({ traffic: [traffic(1)] }));
    const names = (await indexedDB.databases()).map((d) => d.name);
    expect(names).toContain(HISTORY_DB_NAME);
    await db!.forgetReceiver(R);
  });
});

describe('HistoryDb serialised writes', () => {
  it('writes issued back to back all land, in order, never two transactions at once', async () => {
    const db = await open();
    let active = 0;
    let most = 0;
    let readwrite = 0;
    const transaction = IDBDatabase.prototype.transaction;
    vi.spyOn(IDBDatabase.prototype, 'transaction').mockImplementation(function (this: IDBDatabase, ...args) {
      const tx = transaction.apply(this, args);
      if (tx.mode === 'readwrite') {
        readwrite++;
        most = Math.max(most, ++active);
        const end = () => active--;
        tx.addEventListener('complete', end);
        tx.addEventListener('abort', end);
      }
      return tx;
    });
    const outcomes = await Promise.all([
      db.write(R, write({ tasks: [change(record('a'), 0, 2)], traffic: [traffic(1)] })),
      db.write(R, write({ tasks: [change(record('a', { pollCount: 1 }), 2, 1)], traffic: [traffic(2)] })),
      db.write(OTHER, write({ traffic: [traffic(1)] })),
      db.write(
        R,
        write({
          tasks: [change(record('a', { pollCount: 2, lifecycle: 'terminal' }), 3, 2)],
          traffic: [traffic(3)],
        }),
      ),
      db.write(R, write({ meta: { last: true } })),
    ]);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(most).toBe(1);
    // Writes queued behind a running one go together in the next transaction.
    expect(readwrite).toBeLessThanOrEqual(2);
    const loaded = await db.load(R);
    expect(loaded.tasks[0]!.record).toEqual(record('a', { pollCount: 2, lifecycle: 'terminal' }));
    expect(loaded.tasks[0]!.entries).toEqual([0, 1, 2, 3, 4].map(obs));
    expect(loaded.traffic.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(loaded.meta).toEqual({ last: true });
    expect((await db.load(OTHER)).traffic).toHaveLength(1);
  });

  it('a load issued after a write sees it', async () => {
    const db = await open();
    void db.write(R, write({ traffic: [traffic(1)] }));
    expect((await db.load(R)).traffic).toHaveLength(1);
  });

  it('times a write of 1,000 tasks with a few new entries each (printed, not asserted)', async () => {
    const db = await open();
    const tasks = (from: number, pollCount: number) =>
      Array.from({ length: 1000 }, (_, i) => change(record(`task-${i}`, { pollCount }), from, 3));
    const snapshots = Array.from({ length: 1000 }, (_, i): [string, TaskSnapshot] => [
      `task-${i}`,
      snapshot(`task-${i}`, 'working'),
    ]);
    // The first run of any code path pays for the JIT: time a warmed-up run as well as a cold one.
    let started = performance.now();
    expect(await db.write(OTHER, write({ tasks: tasks(0, 1), snapshots }))).toEqual({ ok: true });
    const cold = performance.now() - started;
    started = performance.now();
    expect(await db.write(R, write({ tasks: tasks(0, 1), snapshots }))).toEqual({ ok: true });
    const first = performance.now() - started;
    started = performance.now();
    expect(await db.write(R, write({ tasks: tasks(3, 2), snapshots }))).toEqual({ ok: true });
    const second = performance.now() - started;
    started = performance.now();
    const loaded = await db.load(R);
    const load = performance.now() - started;
    expect(loaded.tasks).toHaveLength(1000);
    expect(loaded.tasks[999]!.entries).toHaveLength(6);
    console.log(
      `history write, 1,000 tasks × 3 new entries + snapshots: new ${cold.toFixed(1)} ms cold, ` +
        `${first.toFixed(1)} ms warm; existing ${second.toFixed(1)} ms; ` +
        `load of 1,000 tasks × 6 entries ${load.toFixed(1)} ms (fake-indexeddb)`,
    );
  });
});

describe('estimateUsage', () => {
  it('reads navigator.storage.estimate, and is null without it', async () => {
    vi.stubGlobal('navigator', { storage: { estimate: () => Promise.resolve({ usage: 10, quota: 100 }) } });
    expect(await estimateUsage()).toEqual({ usage: 10, quota: 100 });
    vi.stubGlobal('navigator', {});
    expect(await estimateUsage()).toBeNull();
  });
});
