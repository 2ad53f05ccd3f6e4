import { describe, expect, it } from 'vitest';
import {
  MAX_LOGGED_MESSAGE_BYTES,
  TrafficTap,
  forTrafficLog,
  isOmittedBody,
  utf8Length,
  type TrafficEvent,
} from './traffic';

describe('TrafficTap', () => {
  it('pairs each answer with its question: latency, method, HTTP status of the POST that carried it', () => {
    let now = 100;
    const tap = new TrafficTap(() => now);
    const events: TrafficEvent[] = [];
    tap.subscribe((e) => events.push(e));
    tap.record('out', { jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { taskId: 'a' } });
    tap.noteHttpStatus([7], 200);
    now = 142;
    tap.record('in', { jsonrpc: '2.0', id: 7, result: { taskId: 'a' } });
    expect(events[1]).toMatchObject({
      direction: 'in',
      kind: 'response',
      method: 'tasks/get',
      requestSeq: 1,
      latencyMs: 42,
      httpStatus: 200,
    });
    expect(events[0]!.bytes).toBe(JSON.stringify(events[0]!.message).length);
  });

  it('keeps our ids and the receiver’s apart, and names notifications and errors', () => {
    const tap = new TrafficTap(() => 0);
    const events: TrafficEvent[] = [];
    tap.subscribe((e) => events.push(e));
    tap.record('in', { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: {} }); // the receiver's request 0
    tap.record('in', { jsonrpc: '2.0', id: 0, error: { code: -32602, message: 'x' } }); // an answer to OUR request 0: none pending
    tap.record('out', { jsonrpc: '2.0', id: 0, result: { action: 'accept' } }); // our answer to the receiver's 0
    tap.record('in', { jsonrpc: '2.0', method: 'notifications/tasks/status', params: {} });
    expect(events.map((e) => e.kind)).toEqual(['request', 'error', 'response', 'notification']);
    expect(events[1]!.requestSeq).toBeUndefined();
    expect(events[2]).toMatchObject({ method: 'elicitation/create', requestSeq: 1 });
  });

  it('keeps nothing unbounded: unanswered requests beyond its limit are forgotten', () => {
    const tap = new TrafficTap(() => 0);
    for (let id = 0; id < 6000; id++) tap.record('out', { jsonrpc: '2.0', id, method: 'tasks/get' });
    const events: TrafficEvent[] = [];
    tap.subscribe((e) => events.push(e));
    tap.record('in', { jsonrpc: '2.0', id: 0, result: {} });
    tap.record('in', { jsonrpc: '2.0', id: 5999, result: {} });
    expect(events.map((e) => e.requestSeq)).toEqual([undefined, 6000]);
  });

  it('a failing subscriber does not stop the others', () => {
    const tap = new TrafficTap();
    const seen: number[] = [];
    tap.subscribe(() => {
      throw new Error('boom');
    });
    tap.subscribe((e) => seen.push(e.seq));
    tap.record('out', { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(seen).toEqual([1]);
  });
});

describe('isOmittedBody', () => {
  it('recognises exactly the note forTrafficLog writes', () => {
    const big = { jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(MAX_LOGGED_MESSAGE_BYTES + 10) } };
    const tap = new TrafficTap(() => 0);
    const logged = forTrafficLog(tap.record('in', big));
    expect(isOmittedBody(logged.message)).toBe(true);
  });

  it('does not let a receiver hide a message behind an omitted key', () => {
    expect(isOmittedBody({ jsonrpc: '2.0', id: 1, omitted: 'nothing here' })).toBe(false);
    expect(isOmittedBody({ omitted: 3 })).toBe(false);
    expect(isOmittedBody([])).toBe(false);
    expect(isOmittedBody(null)).toBe(false);
  });
});

describe('utf8Length', () => {
  it('counts what TextEncoder would make: ASCII, two- and three-byte characters, pairs and lone surrogates', () => {
    const encoder = new TextEncoder();
    const samples = [
      '',
      'tasks/get',
      'café',
      '価格 ≥ 1 €',
      'emoji 😀 and 𝄞',
      'lone \ud800 high, lone \udc00 low, high at the end \ud83d',
      '\udc00\ud800 reversed pair',
      'a'.repeat(1000) + 'é😀',
    ];
    for (const text of samples) expect(utf8Length(text), text).toBe(encoder.encode(text).length);
  });

  it('gives the tap the size of a message as UTF-8 JSON', () => {
    const tap = new TrafficTap();
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { text: 'Grüße 😀' } };
    const event = tap.record('out', message);
    expect(event.bytes).toBe(new TextEncoder().encode(JSON.stringify(message)).length);
  });
});
