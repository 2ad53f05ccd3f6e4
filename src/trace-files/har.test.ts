import { describe, expect, it } from 'vitest';
import type { TrafficEvent } from '../mcp';
import { harValidator } from '../../test/helpers/har-validator';
import { buildTrace, type TraceSources } from '../engine/trace/build-trace';
import { buildHar } from './har';

const URL_ = 'http://127.0.0.1:3001/mcp';

function event(
  fields: Partial<TrafficEvent> & Pick<TrafficEvent, 'seq' | 'direction' | 'kind'>,
): TrafficEvent {
  return {
    at: fields.seq * 10,
    wallTime: 1_796_000_000_000 + fields.seq * 10,
    bytes: 40,
    message: {},
    ...fields,
  };
}

/** Traffic as the tap logs it before HTTP facts were recorded, and one exchange with them. */
const traffic: TrafficEvent[] = [
  event({
    seq: 1,
    direction: 'out',
    kind: 'request',
    method: 'tasks/get',
    id: 1,
    message: { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 't' } },
  }),
  event({
    seq: 2,
    direction: 'in',
    kind: 'response',
    method: 'tasks/get',
    id: 1,
    requestSeq: 1,
    latencyMs: 12.3456,
    httpStatus: 200,
    message: { jsonrpc: '2.0', id: 1, result: { taskId: 't', status: 'working' } },
  }),
  // Streamed by the receiver, and a failure the log could not pair: neither is an exchange of its own.
  event({ seq: 3, direction: 'in', kind: 'notification', method: 'notifications/tasks/status' }),
  event({
    seq: 4,
    direction: 'in',
    kind: 'http-error',
    httpStatus: 502,
    message: { httpStatus: 502, body: '' },
  }),
  event({ seq: 5, direction: 'out', kind: 'notification', method: 'notifications/initialized' }),
  event({
    seq: 6,
    direction: 'out',
    kind: 'request',
    method: 'tasks/result',
    id: 2,
    message: { jsonrpc: '2.0', id: 2, method: 'tasks/result', params: { taskId: 't' } },
  }),
  event({
    seq: 7,
    direction: 'in',
    kind: 'response',
    method: 'tasks/result',
    id: 2,
    requestSeq: 6,
    latencyMs: 30,
    bytes: 3_000_000,
    message: { omitted: '3000000 bytes, too large to keep in the log' },
    http: {
      method: 'POST',
      url: `${URL_}?key=abc`,
      requestHeaders: { 'content-type': 'application/json', authorization: '[redacted]' },
      status: 200,
      responseHeaders: { 'content-type': 'text/event-stream' },
      wallStartedAt: 1_796_000_000_060,
      waitMs: 5,
    },
  }),
  event({
    seq: 8,
    direction: 'out',
    kind: 'request',
    method: 'tasks/get',
    id: 3,
    message: { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { taskId: 't' } },
  }),
  event({
    seq: 9,
    direction: 'in',
    kind: 'http-error',
    id: 3,
    requestSeq: 8,
    latencyMs: 4,
    httpStatus: 502,
    message: { httpStatus: 502, body: '<h1>Bad gateway</h1>' },
    http: {
      method: 'POST',
      url: URL_,
      requestHeaders: { 'content-type': 'application/json' },
      status: 502,
      responseHeaders: { 'content-type': 'text/html' },
      wallStartedAt: 1_796_000_000_080,
      waitMs: 4,
    },
  }),
];

function sources(events: TrafficEvent[]): TraceSources {
  return {
    receiver: { url: URL_, headers: { Authorization: 'Bearer s3cret', 'X-Team': 'blue' } },
    tools: [],
    tasks: [],
    snapshot: () => undefined,
    result: () => undefined,
    inbox: [],
    traffic: events,
  };
}

describe('buildHar', () => {
  it('makes one valid HAR 1.2 entry per answered POST, rebuilt where no HTTP facts were recorded', () => {
    const har = buildHar(buildTrace(sources(traffic)));
    const validate = harValidator();
    expect(validate(har), JSON.stringify(validate.errors)).toBe(true);
    expect(har.log.entries.map((e) => e._jsonrpc?.method)).toEqual([
      'tasks/get',
      'tasks/result',
      'tasks/get',
    ]);

    const [poll, result, refused] = har.log.entries;
    expect(poll!.startedDateTime).toBe(new Date(1_796_000_000_010).toISOString());
    expect(poll!.request.headers).toEqual([
      { name: 'content-type', value: 'application/json' },
      { name: 'accept', value: 'application/json, text/event-stream' },
      { name: 'Authorization', value: '[redacted]' },
      { name: 'X-Team', value: 'blue' },
    ]);
    expect(JSON.parse(poll!.request.postData!.text)).toMatchObject({ method: 'tasks/get' });
    expect(poll!.timings).toEqual({ send: 0, wait: 12.346, receive: 0 });
    expect(poll!.comment).toMatch(/rebuilt from Taskscope's JSON-RPC log/);
    expect(poll!.response.status).toBe(200);

    // With facts: their URL (its key redacted by the trace), headers and timings; the stream's answer as JSON.
    expect(result!.request.url).toBe(`${URL_}?key=%5Bredacted%5D`);
    expect(result!.request.queryString).toEqual([{ name: 'key', value: '[redacted]' }]);
    expect(result!.timings).toEqual({ send: 0, wait: 5, receive: 25 });
    expect(result!.time).toBe(30);
    expect(result!.response.content).toMatchObject({ mimeType: 'application/json', size: 3_000_000 });
    expect(result!.comment).toBe('response body not kept (3000000 bytes)');
    expect(JSON.stringify(har)).not.toContain('s3cret');

    // A POST refused with an HTTP error: the body as the receiver sent it.
    expect(refused!.response).toMatchObject({
      status: 502,
      content: { mimeType: 'text/html', text: '<h1>Bad gateway</h1>', size: 20 },
    });
  });

  it('with secrets included, the person’s own header values are in the rebuilt entries', () => {
    const har = buildHar(buildTrace(sources(traffic), { includeSecrets: true }));
    expect(har.log.entries[0]!.request.headers).toContainEqual({
      name: 'Authorization',
      value: 'Bearer s3cret',
    });
  });
});
