import { beforeEach, describe, expect, it } from 'vitest';
import { TrafficTap, type TrafficEvent } from '../mcp';
import {
  TRAFFIC_BYTE_CAP,
  TRAFFIC_COUNT_CAP,
  trafficEvents,
  trafficEventsOf,
  useTraffic,
  applyTrafficBatch,
  setWindowWanted,
} from './traffic-store';
import { NO_FILTER } from '../engine/traffic-filter';
import type { TrafficLine, TrafficWindow } from '../engine/traffic-window';
import { addEvents, emptyLog, taskIdOf } from '../engine/traffic-rows';

/** Events as the real tap makes them, so pairing is by the tap's own requestSeq. */
function recorder() {
  let now = 0;
  const tap = new TrafficTap(() => (now += 5));
  const events: TrafficEvent[] = [];
  tap.subscribe((e) => events.push(e));
  return { tap, events };
}

beforeEach(() => useTraffic.getState().clear());

describe('pairing', () => {
  it('puts a request and its answer in one row, with method, task, status, error code, size and latency', () => {
    const { tap, events } = recorder();
    tap.record('out', { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 't-1' } });
    tap.record('out', { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    tap.record('in', { jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId: 't-2' } });
    tap.noteHttpStatus([1], 200);
    tap.record('in', { jsonrpc: '2.0', id: 1, result: { taskId: 't-1', status: 'working' } });
    tap.record('in', { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'no' } });
    useTraffic.getState().pushMany(events);
    const { rows, total, kept } = useTraffic.getState();
    expect(total).toBe(5);
    expect(kept).toBe(5);
    expect(rows).toHaveLength(3);
    const [get, list, note] = rows;
    expect(get).toMatchObject({ method: 'tasks/get', taskId: 't-1', kind: 'request', httpStatus: 200 });
    expect(get!.latencyMs).toBe(15);
    expect(get!.bytes).toBe(events[0]!.bytes + events[3]!.bytes);
    expect(list).toMatchObject({ method: 'tools/list', kind: 'error', rpcErrorCode: -32601 });
    expect(note).toMatchObject({ kind: 'notification', taskId: 't-2', answer: undefined });
  });

  it('pairs across batches, and pairs the receiver’s requests with our answers', () => {
    const { tap, events } = recorder();
    tap.record('in', {
      jsonrpc: '2.0',
      id: 'e1',
      method: 'elicitation/create',
      params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't-9' } } },
    });
    useTraffic.getState().pushMany(events.splice(0));
    tap.record('out', { jsonrpc: '2.0', id: 'e1', result: { action: 'accept' } });
    useTraffic.getState().pushMany(events.splice(0));
    const { rows } = useTraffic.getState();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ method: 'elicitation/create', taskId: 't-9' });
    expect(rows[0]!.answer?.direction).toBe('out');
    expect(trafficEvents().map((e) => e.direction)).toEqual(['in', 'out']);
  });

  it('pairs only within a connection: another connection’s request with the same seq stays alone', () => {
    // Two taps numbering from 0, as two connections (or a replay and a connection) could.
    const first = recorder();
    const second = recorder();
    first.tap.record('out', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    second.tap.record('out', { jsonrpc: '2.0', id: 1, method: 'tasks/list' });
    second.tap.record('in', { jsonrpc: '2.0', id: 1, result: { tasks: [] } });
    const of = (events: TrafficEvent[], connectionId: number) => events.map((e) => ({ ...e, connectionId }));
    useTraffic.getState().pushMany(of(first.events, 1));
    useTraffic.getState().pushMany(of(second.events, 2));
    const { rows } = useTraffic.getState();
    expect(rows.map((r) => [r.method, r.answer !== undefined])).toEqual([
      ['tools/list', false],
      ['tasks/list', true],
    ]);
    expect(trafficEventsOf(2).map((e) => e.method)).toEqual(['tasks/list', 'tasks/list']);
    expect(trafficEventsOf(1).map((e) => e.method)).toEqual(['tools/list']);
    expect(trafficEventsOf(3)).toEqual([]);
  });

  it('pairs an HTTP error with the request whose POST it refused', () => {
    const { tap, events } = recorder();
    tap.record('out', { jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { taskId: 'x' } });
    tap.record(
      'in',
      { httpStatus: 503, body: 'busy' },
      { httpStatus: 503, kind: 'http-error', inReplyTo: 7 },
    );
    useTraffic.getState().pushMany(events);
    const { rows } = useTraffic.getState();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'error', httpStatus: 503, taskId: 'x' });
  });

  it('finds the task in params, in the answer, or in the related-task _meta', () => {
    expect(taskIdOf({ params: { taskId: 'a' } })).toBe('a');
    expect(taskIdOf({ result: { task: { taskId: 'b' } } })).toBe('b');
    expect(taskIdOf({ result: { taskId: 'c' } })).toBe('c');
    expect(taskIdOf({ result: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'd' } } } })).toBe(
      'd',
    );
    expect(taskIdOf({ result: { tools: [] } })).toBeUndefined();
  });
});

describe('the traffic ring', () => {
  it('10,000 messages stay within the cap: bytes at or under the byte cap, the newest kept, every one counted', () => {
    const { tap, events } = recorder();
    const filler = 'x'.repeat(4000);
    for (let i = 0; i < 5_000; i++) {
      tap.record('out', { jsonrpc: '2.0', id: i, method: 'tasks/get', params: { taskId: `t-${i}`, filler } });
      tap.record('in', { jsonrpc: '2.0', id: i, result: { taskId: `t-${i}`, status: 'working', filler } });
    }
    for (let at = 0; at < events.length; at += 250)
      useTraffic.getState().pushMany(events.slice(at, at + 250));
    const { rows, bytes, kept, total } = useTraffic.getState();
    expect(total).toBe(10_000);
    expect(bytes).toBeLessThanOrEqual(TRAFFIC_BYTE_CAP);
    // About 4 KB a message: the byte cap, not the count cap, is what holds here.
    expect(kept).toBeLessThan(10_000);
    expect(kept).toBeGreaterThan(TRAFFIC_BYTE_CAP / 5_000);
    expect(kept).toBe(rows.length * 2);
    expect(bytes).toBe(rows.reduce((sum, r) => sum + r.cost, 0));
    expect(rows.at(-1)?.taskId).toBe('t-4999');
    // The oldest kept rows are whole pairs, still in order.
    expect(rows[0]!.answer).toBeDefined();
    expect(Number(rows[0]!.taskId!.slice(2))).toBe(5_000 - rows.length);
  });

  it('holds the count cap for small messages', () => {
    const { tap, events } = recorder();
    for (let i = 0; i < TRAFFIC_COUNT_CAP + 500; i++)
      tap.record('in', { jsonrpc: '2.0', method: 'n', params: { i } });
    useTraffic.getState().pushMany(events, 3);
    const { kept, total, rows } = useTraffic.getState();
    expect(kept).toBe(TRAFFIC_COUNT_CAP);
    expect(total).toBe(TRAFFIC_COUNT_CAP + 503);
    expect((rows[0]!.first.message as { params: { i: number } }).params.i).toBe(500);
  });

  it('the engine’s log, changed in place, pairs and caps as a copied one does', () => {
    const { tap, events } = recorder();
    for (let i = 0; i < 300; i++) {
      tap.record('out', { jsonrpc: '2.0', id: i, method: 'tasks/get', params: { taskId: `t-${i}` } });
      tap.record('in', { jsonrpc: '2.0', id: i, result: { taskId: `t-${i}`, status: 'working' } });
    }
    const caps = { bytes: TRAFFIC_BYTE_CAP, count: 250 };
    let copied = emptyLog();
    let inPlace = emptyLog();
    const rows = inPlace.rows;
    for (let at = 0; at < events.length; at += 7) {
      copied = addEvents(copied, events.slice(at, at + 7), 0, caps);
      inPlace = addEvents(inPlace, events.slice(at, at + 7), 0, caps, true);
    }
    expect(inPlace.rows).toBe(rows);
    expect(inPlace.rows).toEqual(copied.rows);
    expect([inPlace.kept, inPlace.total, inPlace.bytes]).toEqual([copied.kept, copied.total, copied.bytes]);
    expect(inPlace.kept).toBe(250);
  });

  it('clear empties the list and resets the counts', () => {
    const { tap, events } = recorder();
    tap.record('out', { jsonrpc: '2.0', id: 1, method: 'ping' });
    useTraffic.getState().pushMany(events, 4);
    useTraffic.getState().clear();
    expect(useTraffic.getState()).toMatchObject({ rows: [], total: 0, kept: 0, bytes: 0 });
  });
});

describe('the drawer’s window on the page', () => {
  const line = (n: number, latencyMs?: number): TrafficLine => ({
    n,
    seq: n,
    wallTime: 0,
    direction: 'out',
    opener: 'request',
    answered: latencyMs !== undefined,
    method: 'tasks/get',
    kind: 'request',
    bytes: 10,
    ...(latencyMs !== undefined ? { latencyMs } : {}),
  });
  const apply = (window: TrafficWindow) =>
    applyTrafficBatch({ traffic: [], trafficDropped: 0, trafficEpoch: 0, trafficWindow: window });
  const base = { filter: NO_FILTER, filtered: 3, start: 0 };
  beforeEach(() => setWindowWanted(true));

  it('keeps a line’s object while it is unchanged, so its row is not drawn again; keeps methods and the opened row until they change', () => {
    apply({ ...base, lines: [line(1, 5), line(2)], methods: ['tasks/get'], opened: null });
    const [first, second] = useTraffic.getState().window!.lines;
    apply({ ...base, lines: [line(1, 5), line(2, 7), line(3)] });
    const now = useTraffic.getState().window!;
    expect(now.lines[0]).toBe(first);
    expect(now.lines[1]).not.toBe(second);
    expect(now.lines[1]?.latencyMs).toBe(7);
    expect(now.methods).toEqual(['tasks/get']);
    expect(now.opened).toBeNull();
  });

  it('keeps no window sent before the drawer closed', () => {
    apply({ ...base, lines: [line(1)], methods: [], opened: null });
    setWindowWanted(false);
    expect(useTraffic.getState().window).toBeUndefined();
    apply({ ...base, lines: [line(1), line(2)], methods: [], opened: null });
    expect(useTraffic.getState().window).toBeUndefined();
  });
});
