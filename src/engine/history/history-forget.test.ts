import 'fake-indexeddb/auto';
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
