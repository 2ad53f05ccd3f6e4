import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Normalised, TaskResultSnapshot, TaskSnapshot, TrafficEvent } from '../../mcp';
import { newTrackedTask, type TimelineEntry, type TrackedTask } from '../../tracker/task-store';
import type { InboxEvent } from '../messages';
import {
  HistoryDb,
  estimateUsage,
  type HistoryCaps,
  type HistoryWrite,
  type StoredTaskWrite,
} from './history-db';
import { REDACTED } from './redact';
import { HISTORY_DB_NAME } from './schema';

const R = 'https://receiver.example/mcp';
const OTHER = 'http://localhost:3001/mcp';

type Record_ = Omit<TrackedTask, 'entries'>;

function record(taskId: string, fields: Partial<TrackedTask> = {}): Record_ {
  const { entries: _entries, ...rest } = newTrackedTask({
    taskId,
    connectionId: 1,
    origin: 'created',
    firstSeenAt: 1_000,
    ...fields,
  });
  return rest;
}

function obs(at: number): TimelineEntry {
  return { kind: 'observation', at, source: 'poll', status: 'working', warnings: [] };
}

function write(fields: Partial<HistoryWrite>): HistoryWrite {
  return { tasks: [], snapshots: [], results: [], traffic: [], inbox: [], ...fields };
}

/** A task change as the engine sends it: `count` new entries starting at absolute index `fromIndex`. */
function change(rec: Record_, fromIndex: number, count: number): StoredTaskWrite {
  const newEntries = Array.from({ length: count }, (_, i) => obs(fromIndex + i));
  return { record: rec, newEntries, entryTotal: fromIndex + count };
}

function snapshot(taskId: string, status: TaskSnapshot['status']): TaskSnapshot {
  return { taskId, status, shape: 'flat', pollInterval: 1000 };
}

function result(text: string): Normalised<TaskResultSnapshot> {
  return {
    value: { result: { content: [{ type: 'text', text }] }, isError: false, shape: 'plain' },
    warnings: [],
  };
}

function traffic(
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

function asked(key: string): InboxEvent {
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

async function open(caps: Partial<HistoryCaps> = {}, factory: IDBFactory = new IDBFactory()) {
  const db = await HistoryDb.open({ indexedDB: factory, caps });
  expect(db).not.toBeNull();
  opened.push(db!);
  return db!;
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  for (const db of opened.splice(0)) db.close();
});

describe('HistoryDb round trip', () => {
  it('restores records, entries written across several writes, snapshots, results, traffic, inbox and meta', async () => {
    const db = await open();
    const a1 = record('a', { pollCount: 1 });
    expect(
      await db.write(
        R,
        write({
          tasks: [change(a1, 0, 2), change(record('b'), 0, 1)],
          snapshots: [['a', snapshot('a', 'working')]],
          traffic: [traffic(1), traffic(2)],
          inbox: [asked('k1')],
          meta: { server: { name: 'demo' }, clockOffsetMs: 12 },
        }),
      ),
    ).toEqual({ ok: true });
    const a2 = record('a', { pollCount: 3, status: 'completed', lifecycle: 'terminal' });
    expect(
      await db.write(
        R,
        write({
          tasks: [change(a2, 2, 3)],
          snapshots: [['a', snapshot('a', 'completed')]],
          results: [['a', result('done')]],
          traffic: [traffic(3)],
          inbox: [{ kind: 'settled', key: 'k1', state: 'answered', outcome: 'accepted' }],
          meta: { clockOffsetMs: 15, dialects: ['spec'] },
        }),
      ),
    ).toEqual({ ok: true });

    const loaded = await db.load(R);
    expect(loaded.tasks.map((t) => t.record.taskId)).toEqual(['a', 'b']);
    const [a, b] = loaded.tasks;
    expect(a!.record).toEqual(a2);
    expect(a!.entries).toEqual([0, 1, 2, 3, 4].map(obs));
    expect(a!.snapshot).toEqual(snapshot('a', 'completed'));
    expect(a!.result).toEqual(result('done'));
    expect(b!.record).toEqual(record('b'));
    expect(b!.entries).toEqual([obs(0)]);
    expect(b!.snapshot).toBeUndefined();
    expect(b!.result).toBeUndefined();
    expect(loaded.traffic.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(loaded.traffic[0]).toEqual(traffic(1));
    expect(loaded.inbox).toEqual([
      asked('k1'),
      { kind: 'settled', key: 'k1', state: 'answered', outcome: 'accepted' },
    ]);
    expect(loaded.meta).toEqual({ server: { name: 'demo' }, clockOffsetMs: 15, dialects: ['spec'] });
    expect(loaded.droppedTasks).toBe(0);
  });

  it('keeps a snapshot written without a record change, and the record written without a snapshot', async () => {
    const db = await open();
    await db.write(
      R,
      write({ tasks: [change(record('a'), 0, 1)], snapshots: [['a', snapshot('a', 'working')]] }),
    );
    await db.write(R, write({ tasks: [change(record('a', { pollCount: 2 }), 1, 1)] }));
    await db.write(R, write({ snapshots: [['a', snapshot('a', 'input_required')]] }));
    const [a] = (await db.load(R)).tasks;
    expect(a!.record.pollCount).toBe(2);
    expect(a!.snapshot?.status).toBe('input_required');
    expect(a!.entries).toHaveLength(2);
  });

  it('an older copy of a task (another tab that restored it earlier) never undoes the newer timeline', async () => {
    const db = await open();
    await db.write(R, write({ tasks: [change(record('a', { pollCount: 5 }), 0, 5)] }));
    // The other tab knew 3 entries and writes its own third on top.
    await db.write(R, write({ tasks: [change(record('a', { pollCount: 3 }), 2, 1)] }));
    const [a] = (await db.load(R)).tasks;
    expect(a!.record.pollCount).toBe(5);
    expect(a!.entries).toHaveLength(5);
  });

  it('ignores snapshots and results for a task it never had a record of', async () => {
    const db = await open();
    await db.write(
      R,
      write({ snapshots: [['ghost', snapshot('ghost', 'working')]], results: [['ghost', result('x')]] }),
    );
    expect((await db.load(R)).tasks).toEqual([]);
  });

  it('keeps each receiver apart', async () => {
    const db = await open();
    await db.write(R, write({ tasks: [change(record('a'), 0, 1)], traffic: [traffic(1)], meta: { n: 1 } }));
    await db.write(
      OTHER,
      write({ tasks: [change(record('a', { tool: 'other' }), 0, 3)], inbox: [asked('x')] }),
    );
    const mine = await db.load(R);
    const theirs = await db.load(OTHER);
    expect(mine.tasks[0]!.entries).toHaveLength(1);
    expect(mine.tasks[0]!.record.tool).toBeUndefined();
    expect(mine.inbox).toEqual([]);
    expect(mine.meta).toEqual({ n: 1 });
    expect(theirs.tasks[0]!.record.tool).toBe('other');
    expect(theirs.tasks[0]!.entries).toHaveLength(3);
    expect(theirs.traffic).toEqual([]);
    expect(theirs.meta).toEqual({});
    expect(await db.load('http://never.example/mcp')).toEqual({
      tasks: [],
      traffic: [],
      inbox: [],
      meta: {},
      droppedTasks: 0,
    });
  });

  it('stores traffic as the log keeps it: an oversized body is replaced by a note', async () => {
    const db = await open();
    const big = { jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(70 * 1024) } };
    await db.write(R, write({ traffic: [traffic(1, big)] }));
    const [event] = (await db.load(R)).traffic;
    expect(event!.message).toEqual({ omitted: expect.stringContaining('too large') as unknown });
  });
});

describe('HistoryDb caps', () => {
  it('keeps the newest maxEntriesPerTask entries, deleting older ones, with droppedEntries making up the total', async () => {
    const db = await open({ maxEntriesPerTask: 5 });
    await db.write(R, write({ tasks: [change(record('a'), 0, 3)] }));
    await db.write(R, write({ tasks: [change(record('a', { droppedEntries: 0 }), 3, 4)] }));
    let [a] = (await db.load(R)).tasks;
    expect(a!.entries.map((e) => e.at)).toEqual([2, 3, 4, 5, 6]);
    expect(a!.record.droppedEntries).toBe(2);
    // More new entries in one write than the cap keeps: only the newest are stored.
    await db.write(R, write({ tasks: [change(record('a'), 7, 12)] }));
    [a] = (await db.load(R)).tasks;
    expect(a!.entries.map((e) => e.at)).toEqual([14, 15, 16, 17, 18]);
    expect(a!.record.droppedEntries + a!.entries.length).toBe(19);
  });

  it('deletes trimmed entries from the store, not only from what load returns', async () => {
    const factory = new IDBFactory();
    const db = await open({ maxEntriesPerTask: 3 }, factory);
    for (let i = 0; i < 10; i++) await db.write(R, write({ tasks: [change(record('a'), i, 1)] }));
    db.close();
    // A history opened with a larger cap would show trimmed entries if they were still there.
    const wide = await open({ maxEntriesPerTask: 100 }, factory);
    const [a] = (await wide.load(R)).tasks;
    expect(a!.entries.map((e) => e.at)).toEqual([7, 8, 9]);
    expect(a!.record.droppedEntries).toBe(7);
  });

  it('past maxTasks drops the oldest tasks that are not live, with their entries, and never a live one', async () => {
    const db = await open({ maxTasks: 3 });
    await db.write(
      R,
      write({
        tasks: [
          change(record('live-1'), 0, 1),
          change(record('done-1', { lifecycle: 'terminal' }), 0, 2),
          change(record('live-2'), 0, 1),
        ],
        results: [['done-1', result('r')]],
      }),
    );
    await db.write(R, write({ tasks: [change(record('new-1', { lifecycle: 'purged' }), 0, 1)] }));
    let loaded = await db.load(R);
    expect(loaded.tasks.map((t) => t.record.taskId)).toEqual(['live-1', 'live-2', 'new-1']);
    expect(loaded.droppedTasks).toBe(1);
    // All older tasks live: the newest non-live goes, the live ones stay even past the cap.
    await db.write(R, write({ tasks: [change(record('live-3'), 0, 1)] }));
    loaded = await db.load(R);
    expect(loaded.tasks.map((t) => t.record.taskId)).toEqual(['live-1', 'live-2', 'live-3']);
    expect(loaded.droppedTasks).toBe(2);
    await db.write(R, write({ tasks: [change(record('live-4'), 0, 1)] }));
    loaded = await db.load(R);
    expect(loaded.tasks.map((t) => t.record.taskId)).toEqual(['live-1', 'live-2', 'live-3', 'live-4']);
    // A dropped task coming back starts from nothing: no stale entries or result of its old self.
    await db.write(R, write({ tasks: [change(record('done-1', { lifecycle: 'live' }), 0, 1)] }));
    const back = (await db.load(R)).tasks.find((t) => t.record.taskId === 'done-1');
    expect(back!.entries).toEqual([obs(0)]);
    expect(back!.result).toBeUndefined();
  });

  it('a task that ends later becomes droppable, and first-seen order is kept across updates', async () => {
    const db = await open({ maxTasks: 2 });
    await db.write(R, write({ tasks: [change(record('a'), 0, 1), change(record('b'), 0, 1)] }));
    await db.write(R, write({ tasks: [change(record('a', { lifecycle: 'terminal' }), 1, 1)] }));
    await db.write(R, write({ tasks: [change(record('c'), 0, 1)] }));
    const loaded = await db.load(R);
    expect(loaded.tasks.map((t) => t.record.taskId)).toEqual(['b', 'c']);
  });

  it('keeps the newest maxTraffic traffic events and maxInbox inbox events', async () => {
    const db = await open({ maxTraffic: 4, maxInbox: 2 });
    await db.write(R, write({ traffic: [1, 2, 3].map((n) => traffic(n)), inbox: [asked('a'), asked('b')] }));
    await db.write(R, write({ traffic: [4, 5, 6].map((n) => traffic(n)), inbox: [asked('c')] }));
    let loaded = await db.load(R);
    expect(loaded.traffic.map((e) => e.seq)).toEqual([3, 4, 5, 6]);
    expect(loaded.inbox).toEqual([asked('b'), asked('c')]);
    // One write larger than the cap.
    await db.write(R, write({ traffic: [7, 8, 9, 10, 11, 12].map((n) => traffic(n)) }));
    loaded = await db.load(R);
    expect(loaded.traffic.map((e) => e.seq)).toEqual([9, 10, 11, 12]);
  });

  it('never loads more tasks than the cap it was opened with, live ones first to stay', async () => {
    const factory = new IDBFactory();
    const db = await open({}, factory);
    await db.write(
      R,
      write({
        tasks: [
          change(record('old', { lifecycle: 'terminal' }), 0, 1),
          change(record('live'), 0, 1),
          change(record('newer', { lifecycle: 'terminal' }), 0, 1),
        ],
      }),
    );
    db.close();
    const narrow = await open({ maxTasks: 2 }, factory);
    const loaded = await narrow.load(R);
    expect(loaded.tasks.map((t) => t.record.taskId)).toEqual(['live', 'newer']);
    expect(loaded.droppedTasks).toBe(1);
  });
});

describe('HistoryDb forgetting', () => {
  it('clear forgets traffic, inbox and tasks except the ones kept, and keeps the facts', async () => {
    const db = await open({ maxTasks: 2 });
    await db.write(
      R,
      write({
        tasks: [
          change(record('gone', { lifecycle: 'terminal' }), 0, 2),
          change(record('keep'), 0, 2),
          change(record('gone-2', { lifecycle: 'terminal' }), 0, 1),
        ],
        results: [['gone-2', result('x')]],
        traffic: [traffic(1)],
        inbox: [asked('a')],
        meta: { server: 'demo' },
      }),
    );
    await db.write(OTHER, write({ tasks: [change(record('gone'), 0, 1)], traffic: [traffic(1)] }));
    expect((await db.load(R)).droppedTasks).toBe(1);
    await db.clear(R, ['keep']);
    const loaded = await db.load(R);
    expect(loaded.tasks.map((t) => t.record.taskId)).toEqual(['keep']);
    expect(loaded.tasks[0]!.entries).toHaveLength(2);
    expect(loaded.traffic).toEqual([]);
    expect(loaded.inbox).toEqual([]);
    expect(loaded.meta).toEqual({ server: 'demo' });
    expect(loaded.droppedTasks).toBe(0);
    // Another receiver is not touched.
    const other = await db.load(OTHER);
    expect(other.tasks.map((t) => t.record.taskId)).toEqual(['gone']);
    expect(other.traffic).toHaveLength(1);
    // Writing goes on after a clear.
    await db.write(R, write({ traffic: [traffic(2)], tasks: [change(record('next'), 0, 1)] }));
    const after = await db.load(R);
    expect(after.traffic.map((e) => e.seq)).toEqual([2]);
    expect(after.tasks.map((t) => t.record.taskId)).toEqual(['keep', 'next']);
  });

  it('clear without ids forgets every task', async () => {
    const db = await open();
    await db.write(R, write({ tasks: [change(record('a'), 0, 1)], results: [['a', result('r')]] }));
    await db.clear(R);
    expect((await db.load(R)).tasks).toEqual([]);
    await db.write(R, write({ tasks: [change(record('a'), 0, 1)] }));
    expect((await db.load(R)).tasks[0]!.result).toBeUndefined();
  });

  it('forgetTask forgets one task with its entries, snapshot and result', async () => {
    const db = await open();
    await db.write(
      R,
      write({
        tasks: [change(record('a'), 0, 3), change(record('b'), 0, 1)],
        snapshots: [['a', snapshot('a', 'working')]],
        results: [['a', result('r')]],
      }),
    );
    await db.forgetTask(R, 'a');
    let loaded = await db.load(R);
    expect(loaded.tasks.map((t) => t.record.taskId)).toEqual(['b']);
    await db.write(R, write({ tasks: [change(record('a'), 0, 1)] }));
    loaded = await db.load(R);
    const a = loaded.tasks.find((t) => t.record.taskId === 'a')!;
    expect(a.entries).toEqual([obs(0)]);
    expect(a.snapshot).toBeUndefined();
    expect(a.result).toBeUndefined();
    // Forgotten and seen again: it is now the newest.
    expect(loaded.tasks.map((t) => t.record.taskId)).toEqual(['b', 'a']);
  });

  it('forgetReceiver forgets the facts too', async () => {
    const db = await open();
    await db.write(R, write({ tasks: [change(record('a'), 0, 1)], meta: { x: 1 } }));
    await db.forgetReceiver(R);
    expect(await db.load(R)).toEqual({ tasks: [], traffic: [], inbox: [], meta: {}, droppedTasks: 0 });
  });
});

describe('HistoryDb redaction', () => {
  it('stores no credential from headers in traffic, meta, records or results', async () => {
    const db = await open();
    const message = {
      jsonrpc: '2.0',
      id: 1,
      method: 'x',
      params: { request: { headers: { Authorization: 'Bearer t0p', 'X-Api-Key': 'k', Accept: 'a' } } },
    };
    await db.write(
      R,
      write({
        tasks: [change(record('a'), 0, 1)],
        results: [
          ['a', { ...result('r'), value: { ...result('r').value, result: { headers: { cookie: 'c' } } } }],
        ],
        traffic: [traffic(1, message)],
        meta: { connection: { url: R, headers: { authorization: 'Bearer t0p', 'x-trace': 't' } } },
      }),
    );
    const loaded = await db.load(R);
    expect((loaded.traffic[0]!.message as typeof message).params.request.headers).toEqual({
      Authorization: REDACTED,
      'X-Api-Key': REDACTED,
      Accept: 'a',
    });
    expect(loaded.meta).toEqual({
      connection: { url: R, headers: { authorization: REDACTED, 'x-trace': 't' } },
    });
    expect(loaded.tasks[0]!.result!.value.result).toEqual({ headers: { cookie: REDACTED } });
    expect(JSON.stringify(loaded)).not.toContain('t0p');
    // What the caller still holds is untouched.
    expect(message.params.request.headers.Authorization).toBe('Bearer t0p');
  });

  it('a 10,000-deep value neither crashes nor rejects a write', async () => {
    const db = await open();
    let deep: Record<string, unknown> = { headers: { authorization: 'secret' } };
    for (let i = 0; i < 10_000; i++) deep = { child: deep };
    // The tap marks a message it cannot write out as JSON with bytes −1; the log keeps a note instead.
    const outcome = await db.write(
      R,
      write({
        meta: { deep },
        traffic: [{ ...traffic(1), bytes: -1, message: deep }],
        tasks: [change(record('a'), 0, 1)],
      }),
    );
    // Stored, or refused as an error by structured clone: never a throw.
    expect(outcome.ok || outcome.reason === 'error').toBe(true);
    if (outcome.ok) expect(JSON.stringify((await db.load(R)).meta)).not.toContain('secret');
    expect(await db.write(R, write({ traffic: [traffic(2)] }))).toEqual({ ok: true });
  });
});

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
    opened.push(db!);
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
