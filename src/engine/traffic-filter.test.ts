import { describe, expect, it } from 'vitest';
import { TrafficTap, type TrafficEvent } from '../mcp';
import { NO_FILTER, type TrafficFilter } from './traffic-filter';
import { TrafficLog } from './traffic-log';
import { TrafficWindowFeed } from './traffic-window';

/** Events as the real tap makes them, so pairing is by the tap's own requestSeq. */
function recorder() {
  let now = 0;
  const tap = new TrafficTap(() => (now += 5));
  const events: TrafficEvent[] = [];
  tap.subscribe((e) => events.push(e));
  return { tap, events };
}

/** The rows the drawer shows of these events under a filter, as the engine computes them. */
function filterRows(events: readonly TrafficEvent[], filter: TrafficFilter, connectionId?: number) {
  const log = new TrafficLog();
  for (const event of events) log.add(event);
  const feed = new TrafficWindowFeed(log);
  feed.set({
    filter,
    ...(connectionId !== undefined ? { connectionId } : {}),
    start: 0,
    count: 1000,
    follow: false,
  });
  return feed.take()?.lines ?? [];
}

/** The method list the drawer offers for these events. */
function methodsOf(events: readonly TrafficEvent[]) {
  const log = new TrafficLog();
  for (const event of events) log.add(event);
  const feed = new TrafficWindowFeed(log);
  feed.set({ filter: NO_FILTER, start: 0, count: 0, follow: false });
  return feed.take()?.methods;
}

describe('the drawer’s filters, applied in the engine', () => {
  const { tap, events } = recorder();
  tap.record('out', { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 'alpha-1' } });
  tap.record('in', {
    jsonrpc: '2.0',
    id: 1,
    result: { taskId: 'alpha-1', statusMessage: 'Crunching Numbers' },
  });
  tap.record('out', { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 'beta-2' } });
  tap.record('in', { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'unknown task' } });
  tap.record('in', { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } });
  tap.record('out', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { taskId: 'beta-2' } });
  tap.record('in', { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'it broke' } });
  const rows = events;

  it('filter by method, task, kind, and search the bodies in any case', () => {
    expect(filterRows(rows, NO_FILTER)).toHaveLength(4);
    expect(filterRows(rows, { ...NO_FILTER, method: 'tasks/get' })).toHaveLength(2);
    expect(filterRows(rows, { ...NO_FILTER, taskId: 'beta' }).map((r) => r.method)).toEqual([
      'tasks/get',
      'tools/call',
    ]);
    // A -32602 for a task is how a purge is said: expected, so the errors are what went wrong.
    expect(filterRows(rows, { ...NO_FILTER, kind: 'error' }).map((r) => r.method)).toEqual(['tools/call']);
    expect(filterRows(rows, NO_FILTER).find((r) => r.rpcErrorCode === -32602)?.expected).toMatch(
      /no longer has this task/,
    );
    expect(filterRows(rows, { ...NO_FILTER, kind: 'notification' })).toHaveLength(1);
    expect(filterRows(rows, { ...NO_FILTER, search: 'crunching numbers' }).map((r) => r.taskId)).toEqual([
      'alpha-1',
    ]);
    expect(filterRows(rows, { ...NO_FILTER, search: 'UNKNOWN TASK' }).map((r) => r.taskId)).toEqual([
      'beta-2',
    ]);
    expect(filterRows(rows, { ...NO_FILTER, search: 'nowhere' })).toHaveLength(0);
    expect(methodsOf(rows)).toEqual(['notifications/progress', 'tasks/get', 'tools/call']);
  });

  it('a task’s own traffic matches its id exactly; typed text still matches part of one', () => {
    const near = recorder();
    for (const [id, taskId] of [
      [1, 't1'],
      [2, 't10'],
      [3, 'xt1'],
    ] as const)
      near.tap.record('out', { jsonrpc: '2.0', id, method: 'tasks/get', params: { taskId } });
    const nearRows = near.events.map((e) => ({ ...e, connectionId: 3 }));
    const exact = { ...NO_FILTER, taskId: 't1', taskExact: true };
    expect(filterRows(nearRows, exact).map((r) => r.taskId)).toEqual(['t1']);
    expect(filterRows(nearRows, { ...NO_FILTER, taskId: 't1' }).map((r) => r.taskId)).toEqual([
      't1',
      't10',
      'xt1',
    ]);
    // The same id on an earlier connection (a reconnect, a replay) is another task.
    expect(filterRows(nearRows, exact, 3).map((r) => r.taskId)).toEqual(['t1']);
    expect(filterRows(nearRows, exact, 4)).toEqual([]);
  });

  it("a task's traffic includes the progress on the token its creating call sent, and no other task's", () => {
    const { tap, events } = recorder();
    for (const [id, token, taskId] of [
      [1, 'tok-a', 'task-a'],
      [2, 'tok-b', 'task-b'],
    ] as const) {
      tap.record('out', {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'job', task: {}, _meta: { progressToken: token } },
      });
      tap.record('in', { jsonrpc: '2.0', id, result: { task: { taskId, status: 'working' } } });
    }
    for (const token of ['tok-a', 'tok-b', 'tok-a'])
      tap.record('in', {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1 },
      });
    const shown = filterRows(events, { ...NO_FILTER, taskId: 'task-a', taskExact: true });
    expect(shown.map((r) => r.method)).toEqual([
      'tools/call',
      'notifications/progress',
      'notifications/progress',
    ]);
    // Each progress row says whose it is.
    expect(shown.map((r) => r.taskId)).toEqual(['task-a', 'task-a', 'task-a']);
    const bySeq = new Map(events.map((e) => [e.seq, e]));
    expect(
      shown.every(
        (r) =>
          r.method !== 'notifications/progress' ||
          JSON.stringify(bySeq.get(r.seq)?.message).includes('tok-a'),
      ),
    ).toBe(true);
  });
  it('a task’s progress is on its own connection’s token: another connection reuses the same ids', () => {
    const { tap, events } = recorder();
    // Each connection numbers its calls from 1, and the SDK sends a call's id as its progress token.
    for (const taskId of ['task-a', 'task-b']) {
      tap.record('out', {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'job', task: {}, _meta: { progressToken: 1 } },
      });
      tap.record('in', { jsonrpc: '2.0', id: 1, result: { task: { taskId, status: 'working' } } });
      tap.record('in', {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 1, progress: 1 },
      });
    }
    const twoConnections = events.map((e, i) => ({ ...e, connectionId: i < 3 ? 1 : 2 }));
    const shown = (taskId: string, connectionId?: number) =>
      filterRows(twoConnections, { ...NO_FILTER, taskId, taskExact: true }, connectionId).map((r) => [
        r.method,
        r.seq,
      ]);
    const seqs = twoConnections.map((e) => e.seq);
    expect(shown('task-a')).toEqual([
      ['tools/call', seqs[0]],
      ['notifications/progress', seqs[2]],
    ]);
    expect(shown('task-b', 2)).toEqual([
      ['tools/call', seqs[3]],
      ['notifications/progress', seqs[5]],
    ]);
    // A typed part of an id keeps both tasks: each progress row says its own.
    expect(
      filterRows(twoConnections, { ...NO_FILTER, taskId: 'task-' }).map((r) => [r.method, r.taskId]),
    ).toEqual([
      ['tools/call', 'task-a'],
      ['notifications/progress', 'task-a'],
      ['tools/call', 'task-b'],
      ['notifications/progress', 'task-b'],
    ]);
  });
});
