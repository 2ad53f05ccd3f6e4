import { describe, expect, it } from 'vitest';
import { TrafficTap } from '../mcp';
import { MAX_METHODS, NO_FILTER, type TrafficFilter } from './traffic-filter';
import { TrafficLog } from './traffic-log';
import { TrafficWindowFeed, type TrafficWindowRequest } from './traffic-window';

/** A log fed by the real tap (pairing by its requestSeq), with a small ring so that tests can fill it. */
function setup(count = 1000) {
  const log = new TrafficLog({ bytes: 1e9, count });
  let now = 0;
  const tap = new TrafficTap(() => (now += 5));
  tap.subscribe((event) => log.add({ ...event, connectionId: 1 }));
  const feed = new TrafficWindowFeed(log);
  const ask = (change: Partial<TrafficWindowRequest> = {}) =>
    feed.set({ filter: NO_FILTER, connectionId: 1, start: 0, count: 10, follow: false, ...change });
  return { log, tap, feed, ask };
}

let id = 0;
const get = (taskId: string) => ({ jsonrpc: '2.0', id: ++id, method: 'tasks/get', params: { taskId } });
const status = (taskId: string) => ({
  jsonrpc: '2.0',
  method: 'notifications/tasks/status',
  params: { taskId, status: 'working' },
});
const filter = (change: Partial<TrafficFilter>): TrafficFilter => ({ ...NO_FILTER, ...change });
const call = (callId: number, token: string) => ({
  jsonrpc: '2.0',
  id: callId,
  method: 'tools/call',
  params: { name: 'job', task: {}, _meta: { progressToken: token } },
});
const progress = (token: string) => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: token, progress: 1 },
});

describe('the drawer’s window over the engine’s log', () => {
  it('sends the filtered rows of the range asked for, the filtered count, and follows the newest', () => {
    const { tap, feed, ask } = setup();
    for (let i = 0; i < 50; i++) {
      tap.record('out', get(`t-${i}`));
      tap.record('in', status(`t-${i}`));
    }
    ask({ filter: filter({ method: 'tasks/get' }), start: 10, count: 5 });
    const window = feed.take()!;
    expect(window.filtered).toBe(50);
    expect(window.start).toBe(10);
    expect(window.lines.map((l) => l.taskId)).toEqual(['t-10', 't-11', 't-12', 't-13', 't-14']);
    // Light rows: no bodies cross for the table.
    expect(JSON.stringify(window.lines)).not.toContain('jsonrpc');

    ask({ filter: filter({ method: 'tasks/get' }), start: 10, count: 5, follow: true });
    expect(feed.take()!.lines.map((l) => l.taskId)).toEqual(['t-45', 't-46', 't-47', 't-48', 't-49']);
    // Nothing changed: nothing to send.
    expect(feed.take()).toBeUndefined();
    // New rows that match extend the index; the window follows them.
    tap.record('out', get('t-50'));
    tap.record('in', status('t-50'));
    const grown = feed.take()!;
    expect(grown.filtered).toBe(51);
    expect(grown.lines.at(-1)?.taskId).toBe('t-50');
  });

  it('keeps the rows asked for when the ring lets older rows go, and counts only what it holds', () => {
    const { tap, feed, ask } = setup(100);
    for (let i = 0; i < 100; i++) tap.record('in', status(`s-${i}`));
    ask({ start: 50, count: 5 });
    expect(feed.take()!.lines.map((l) => l.taskId)).toEqual(['s-50', 's-51', 's-52', 's-53', 's-54']);
    // Ten more: the ten oldest go, and the same rows are now ten places higher.
    for (let i = 100; i < 110; i++) tap.record('in', status(`s-${i}`));
    const after = feed.take()!;
    expect(after.filtered).toBe(100);
    expect(after.start).toBe(40);
    expect(after.lines.map((l) => l.taskId)).toEqual(['s-50', 's-51', 's-52', 's-53', 's-54']);
    // A request anew (a scroll) is in the indices of now.
    ask({ start: 0, count: 2 });
    expect(feed.take()!.lines.map((l) => l.taskId)).toEqual(['s-10', 's-11']);
  });

  it('searches the bodies, answers included, also when the answer comes after its request was indexed', () => {
    const { tap, feed, ask } = setup();
    tap.record('out', { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 'a' } });
    tap.record('out', { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 'b' } });
    ask({ filter: filter({ search: 'Crunching NUMBERS' }), count: 50 });
    expect(feed.take()!.filtered).toBe(0);
    tap.record('in', { jsonrpc: '2.0', id: 2, result: { taskId: 'b', statusMessage: 'crunching numbers' } });
    const window = feed.take()!;
    expect(window.filtered).toBe(1);
    expect(window.lines[0]).toMatchObject({ taskId: 'b', answered: true, method: 'tasks/get' });
    // An answer that makes a row an error moves it into the errors filter.
    ask({ filter: filter({ kind: 'error' }), count: 50 });
    expect(feed.take()!.filtered).toBe(0);
    tap.record('in', { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'it broke' } });
    expect(feed.take()!.lines.map((l) => l.taskId)).toEqual(['a']);
  });

  it('a task’s own traffic, its progress included, on the current connection only', () => {
    const { tap, feed, ask } = setup();
    tap.record('out', {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'job', task: {}, _meta: { progressToken: 'tok' } },
    });
    tap.record('in', { jsonrpc: '2.0', id: 1, result: { task: { taskId: 'task-a', status: 'working' } } });
    tap.record('in', {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'tok', progress: 1 },
    });
    tap.record('out', get('task-b'));
    ask({ filter: filter({ taskId: 'task-a', taskExact: true }), count: 50 });
    expect(feed.take()!.lines.map((l) => [l.method, l.taskId])).toEqual([
      ['tools/call', 'task-a'],
      ['notifications/progress', 'task-a'],
    ]);
    ask({ filter: filter({ taskId: 'task-a', taskExact: true }), connectionId: 2, count: 50 });
    expect(feed.take()!.filtered).toBe(0);
  });

  it('sends the opened row whole, once, and null once the ring has let it go', () => {
    const { tap, feed, ask } = setup(10);
    tap.record('out', get('x'));
    tap.record('in', { jsonrpc: '2.0', id, result: { taskId: 'x', status: 'working' } });
    ask({ opened: 1 });
    const opened = feed.take()!.opened!;
    expect(opened.n).toBe(1);
    expect(opened.first.message).toMatchObject({ method: 'tasks/get' });
    expect(opened.answer?.message).toMatchObject({ result: { taskId: 'x' } });
    tap.record('in', status('y'));
    const next = feed.take()!;
    expect('opened' in next).toBe(false);
    for (let i = 0; i < 10; i++) tap.record('in', status(`z-${i}`));
    const gone = feed.take()!;
    expect(gone.opened).toBeNull();
    expect(gone.asked).toBe(1);
    // A row the ring let go before it was ever sent: the window says which row it answers, with no row.
    ask({ opened: 2 });
    const never = feed.take()!;
    expect(never.asked).toBe(2);
    expect(never.opened ?? null).toBeNull();
  });

  it('sends the method list when it changes only, and lets a method go with its last row', () => {
    const { tap, feed, ask } = setup(3);
    tap.record('out', get('a'));
    tap.record('in', status('a'));
    ask({ count: 50 });
    expect(feed.take()!.methods).toEqual(['notifications/tasks/status', 'tasks/get']);
    tap.record('in', status('b'));
    expect(feed.take()!.methods).toBeUndefined();
    // The ring lets the tasks/get go.
    tap.record('in', status('c'));
    expect(feed.take()!.methods).toEqual(['notifications/tasks/status']);
  });

  it('starts afresh after a clear, and lets everything go when the drawer closes', () => {
    const { log, tap, feed, ask } = setup();
    tap.record('in', status('a'));
    ask();
    expect(feed.take()!.filtered).toBe(1);
    log.clear();
    expect(feed.take()!.filtered).toBe(0);
    tap.record('in', status('b'));
    expect(feed.take()!.lines.map((l) => l.taskId)).toEqual(['b']);
    feed.set(undefined);
    expect(feed.on).toBe(false);
    expect(log.watcher).toBeUndefined();
    expect(feed.take()).toBeUndefined();
  });
  it('shows progress that came before the answer naming its task, as a rebuild would', () => {
    const { tap, feed, ask } = setup();
    const taskA = filter({ taskId: 'task-a', taskExact: true });
    ask({ filter: taskA, count: 50 });
    expect(feed.take()!.filtered).toBe(0);
    tap.record('out', call(900, 'early'));
    tap.record('in', progress('early'));
    expect(feed.take()!.filtered).toBe(0);
    tap.record('in', { jsonrpc: '2.0', id: 900, result: { task: { taskId: 'task-a', status: 'working' } } });
    const shown = feed.take()!.lines.map((l) => [l.method, l.taskId]);
    expect(shown).toEqual([
      ['tools/call', 'task-a'],
      ['notifications/progress', 'task-a'],
    ]);
    ask({ filter: NO_FILTER, count: 50 });
    feed.take();
    ask({ filter: taskA, count: 50 });
    expect(feed.take()!.lines.map((l) => [l.method, l.taskId])).toEqual(shown);
  });

  it('sends the opened row again only when it changed, not on each new filter', () => {
    const { tap, feed, ask } = setup();
    tap.record('out', get('x'));
    ask({ opened: 1 });
    expect(feed.take()!.opened?.answer).toBeUndefined();
    ask({ opened: 1, filter: filter({ search: 'x' }) });
    expect('opened' in feed.take()!).toBe(false);
    ask({ opened: 1, filter: filter({ search: 'xy' }) });
    expect('opened' in feed.take()!).toBe(false);
    // Its answer changes it: sent again, once.
    tap.record('in', { jsonrpc: '2.0', id, result: { taskId: 'x', status: 'working' } });
    expect(feed.take()!.opened?.answer?.message).toMatchObject({ result: { taskId: 'x' } });
    ask({ opened: 1, filter: NO_FILTER });
    expect('opened' in feed.take()!).toBe(false);
    // Closed and opened again, the drawer gets it anew.
    feed.set(undefined);
    ask({ opened: 1 });
    expect(feed.take()!.opened?.n).toBe(1);
  });

  it('numbers rows on across a clear: an opened row of the cleared log is gone, not a new one', () => {
    const { log, tap, feed, ask } = setup();
    tap.record('out', get('old'));
    ask({ opened: 1 });
    expect(feed.take()!.opened?.n).toBe(1);
    log.clear();
    tap.record('out', get('new'));
    const after = feed.take()!;
    expect(after.opened).toBeNull();
    expect(after.lines.map((l) => [l.n, l.taskId])).toEqual([[2, 'new']]);
  });

  it('lists a method past the list’s cap once a listed one has gone with its rows', () => {
    const { tap, feed, ask } = setup(MAX_METHODS + 1);
    const name = (i: number) => `m-${String(i).padStart(3, '0')}`;
    for (let i = 0; i <= MAX_METHODS; i++) tap.record('in', { jsonrpc: '2.0', method: name(i) });
    ask({ count: 0 });
    const first = feed.take()!.methods!;
    expect(first).toHaveLength(MAX_METHODS);
    expect(first).not.toContain(name(MAX_METHODS));
    // The ring lets m-000 go: the method waiting past the cap takes its place.
    tap.record('in', { jsonrpc: '2.0', method: name(1) });
    const next = feed.take()!.methods!;
    expect(next).toHaveLength(MAX_METHODS);
    expect(next).not.toContain(name(0));
    expect(next).toContain(name(MAX_METHODS));
  });
});
