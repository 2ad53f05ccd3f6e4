import { describe, expect, it } from 'vitest';
import {
  MAX_ENTRIES,
  appendEntry,
  createTasksStore,
  newTrackedTask,
  updateTask,
  type TimelineEntry,
} from './task-store';
import { TaskChangeCollector, applyTaskChanges } from './task-changes';

const entry = (at: number): TimelineEntry => ({
  kind: 'observation',
  at,
  source: 'poll',
  status: 'working',
  warnings: [],
});

function trackerSide() {
  const store = createTasksStore();
  const add = (taskId: string) =>
    store.setState((s) => {
      s.tasks.set(taskId, newTrackedTask({ taskId, connectionId: 1, origin: 'list', firstSeenAt: 0 }));
      return { order: [...s.order, taskId], version: s.version + 1 };
    });
  const observe = (taskId: string, at: number) =>
    updateTask(store, taskId, (t) => ({ ...appendEntry(t, entry(at)), pollCount: t.pollCount + 1 }));
  return { store, add, observe };
}

describe('task changes across the engine boundary', () => {
  it('sends each changed task once per batch with only its new entries', () => {
    const tracker = trackerSide();
    const collector = new TaskChangeCollector();
    tracker.add('a');
    tracker.add('b');
    tracker.observe('a', 1);
    const first = collector.collect(tracker.store.getState())!;
    expect(first.added).toEqual(['a', 'b']);
    expect(first.changes.map((c) => [c.task.taskId, c.newEntries.length])).toEqual([
      ['a', 1],
      ['b', 0],
    ]);
    tracker.observe('b', 2);
    tracker.observe('b', 3);
    const second = collector.collect(tracker.store.getState())!;
    expect(second.added).toEqual([]);
    expect(second.changes.map((c) => [c.task.taskId, c.newEntries.map((e) => e.at)])).toEqual([
      ['b', [2, 3]],
    ]);
    expect(collector.collect(tracker.store.getState())).toBeNull();
  });

  it('rebuilds the same records on the page, and leaves unchanged tasks the same objects', () => {
    const tracker = trackerSide();
    const collector = new TaskChangeCollector();
    const page = createTasksStore();
    tracker.add('a');
    tracker.add('b');
    tracker.observe('a', 1);
    applyTaskChanges(page, collector.collect(tracker.store.getState())!);
    const pageA = page.getState().tasks.get('a');
    tracker.observe('b', 2);
    applyTaskChanges(page, structuredClone(collector.collect(tracker.store.getState())!));
    expect(page.getState().tasks.get('a')).toBe(pageA);
    expect(page.getState().order).toEqual(['a', 'b']);
    for (const id of ['a', 'b'])
      expect(page.getState().tasks.get(id)).toEqual(tracker.store.getState().tasks.get(id));
  });

  it('keeps the newest entries and the dropped count when a timeline passes the cap', () => {
    const tracker = trackerSide();
    const collector = new TaskChangeCollector();
    const page = createTasksStore();
    tracker.add('a');
    for (let i = 0; i < MAX_ENTRIES - 5; i++) tracker.observe('a', i);
    applyTaskChanges(page, collector.collect(tracker.store.getState())!);
    for (let i = MAX_ENTRIES - 5; i < MAX_ENTRIES + 20; i++) tracker.observe('a', i);
    applyTaskChanges(page, collector.collect(tracker.store.getState())!);
    const mine = page.getState().tasks.get('a')!;
    expect(mine.entries).toHaveLength(MAX_ENTRIES);
    expect(mine.droppedEntries).toBe(20);
    expect(mine.entries.at(-1)?.at).toBe(MAX_ENTRIES + 19);
    expect(mine).toEqual(tracker.store.getState().tasks.get('a'));
  });

  it('carries the clock offset and dialects only when they change', () => {
    const tracker = trackerSide();
    const collector = new TaskChangeCollector();
    tracker.add('a');
    expect(collector.collect(tracker.store.getState())?.meta).toBeDefined();
    tracker.observe('a', 1);
    expect(collector.collect(tracker.store.getState())?.meta).toBeUndefined();
    tracker.store.setState({ clockOffsetMs: 1500, clockSamples: 3 });
    expect(collector.collect(tracker.store.getState())?.meta).toMatchObject({ clockOffsetMs: 1500 });
  });

  it('given the ids the page shows, hands out those alone; one that leaves is let go, one that comes back goes whole', () => {
    const tracker = trackerSide();
    const collector = new TaskChangeCollector();
    const page = createTasksStore();
    for (const id of ['a', 'b', 'c']) tracker.add(id);
    tracker.observe('a', 1);
    const first = collector.collect(tracker.store.getState(), new Set(['b', 'c']))!;
    expect(first.changes.map((c) => c.task.taskId)).toEqual(['b', 'c']);
    expect(first.order).toBeUndefined();
    applyTaskChanges(page, first);
    // A poll of a task out of view hands out nothing.
    tracker.observe('a', 2);
    expect(collector.collect(tracker.store.getState(), new Set(['b', 'c']))).toBeNull();
    // Scrolled: a comes in whole (both its entries), c is let go on both sides.
    tracker.observe('c', 3);
    const scrolled = collector.collect(tracker.store.getState(), new Set(['a', 'b']))!;
    expect(scrolled.added).toEqual(['a']);
    expect(scrolled.removed).toEqual(['c']);
    expect(scrolled.changes.map((c) => [c.task.taskId, c.newEntries.map((e) => e.at)])).toEqual([
      ['a', [1, 2]],
    ]);
    applyTaskChanges(page, structuredClone(scrolled));
    expect([...page.getState().tasks.keys()].sort()).toEqual(['a', 'b']);
    expect(page.getState().tasks.get('a')).toEqual(tracker.store.getState().tasks.get('a'));
    expect(collector.holds('c')).toBe(false);
    // Back in view, c comes whole again, with the entry it got while out.
    const back = collector.collect(tracker.store.getState(), new Set(['a', 'b', 'c']))!;
    expect(back.changes.map((c) => [c.task.taskId, c.newEntries.map((e) => e.at)])).toEqual([['c', [3]]]);
  });

  it('holding every record, the page gets the tracker’s order whenever it moves', () => {
    const tracker = trackerSide();
    const collector = new TaskChangeCollector();
    const page = createTasksStore();
    tracker.add('a');
    tracker.add('b');
    // Held only in part first: the page's order is that of arrival.
    applyTaskChanges(page, collector.collect(tracker.store.getState(), new Set(['b']))!);
    const whole = collector.collect(tracker.store.getState())!;
    expect(whole.order).toEqual(['a', 'b']);
    applyTaskChanges(page, whole);
    expect(page.getState().order).toEqual(['a', 'b']);
    // The tracker appends in place: the same array, longer, is a moved order.
    tracker.store.getState().order.push('c');
    tracker.store.setState((s) => {
      s.tasks.set('c', newTrackedTask({ taskId: 'c', connectionId: 1, origin: 'list', firstSeenAt: 0 }));
      return { version: s.version + 1 };
    });
    expect(collector.collect(tracker.store.getState())?.order).toEqual(['a', 'b', 'c']);
    expect(collector.collect(tracker.store.getState())).toBeNull();
  });
});
