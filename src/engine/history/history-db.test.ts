import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import {
  R,
  OTHER,
  asked,
  change,
  cleanUpAfterEach,
  obs,
  open,
  record,
  result,
  snapshot,
  traffic,
  write,
} from '../../../test/helpers/history-fixtures';

cleanUpAfterEach();
import { REDACTED } from './redact';

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
