import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TRACE_FORMAT, TRACE_VERSION } from './limits';
import type { Trace } from './schema';
import { MAX_TRACE_BYTES } from './limits';
import { parseTrace, parseTraceText } from './schema';
import { TRACE_SCHEMA_PATH, traceJsonSchema } from './json-schema';

/** A trace as an export writes it: one completed task with its timeline, result, an inbox request and traffic. */
function sampleTrace(): Trace {
  return {
    format: TRACE_FORMAT,
    version: TRACE_VERSION,
    exportedAt: '2026-12-01T07:00:00.000Z',
    startedAt: 1_000,
    endedAt: 5_000,
    redacted: ['Authorization'],
    receiver: {
      url: 'http://127.0.0.1:3001/mcp?token=%5Bredacted%5D',
      era: '2025-11-25',
      protocolVersion: '2025-11-25',
      server: { name: 'demo', version: '1.0.0', capabilities: { tasks: { list: {} } } },
      support: { list: true, cancel: true, toolCall: true },
      sessionId: 'abc',
      headers: { Authorization: '[redacted]', 'X-Team': 'blue' },
    },
    tools: [
      {
        name: 'slow_job',
        description: 'Works slowly',
        inputSchema: { type: 'object', properties: { durationMs: { type: 'number' } } },
        taskSupport: 'required',
      },
    ],
    tasks: [
      {
        taskId: 't-1',
        tool: 'slow_job',
        call: { tool: 'slow_job', args: { durationMs: 600 }, ttl: 60_000 },
        origin: 'created',
        startedBy: 'check',
        firstSeenAt: 1_000,
        status: 'completed',
        lifecycle: 'terminal',
        droppedEntries: 0,
        entries: [
          { kind: 'observation', at: 1_000, source: 'create', status: 'working', warnings: [] },
          {
            kind: 'observation',
            at: 2_000,
            source: 'poll',
            sentAt: 1_990,
            latencyMs: 10,
            status: 'completed',
            statusMessage: 'done',
            ttl: null,
            warnings: [{ code: 'bad-ttl', message: 'odd' }],
          },
          { kind: 'result', at: 2_100, sentAt: 2_050, latencyMs: 50, outcome: 'fetched', warnings: [] },
          { kind: 'input', at: 1_500, method: 'elicitation/create', phase: 'answered', detail: 'accept' },
          { kind: 'progress', at: 1_600, progress: 1, total: 2 },
          { kind: 'log', at: 1_700, level: 'info', text: 'step 1' },
          { kind: 'session', at: 1_800, phase: 'restored', detail: 'kept' },
          {
            kind: 'error',
            at: 1_900,
            sentAt: 1_890,
            source: 'poll',
            error: { kind: 'timeout', message: 'slow' },
            retryInMs: 200,
          },
        ],
        snapshot: { taskId: 't-1', status: 'completed', ttl: 60_000, pollInterval: 100, shape: 'flat' },
        result: {
          value: { result: { content: [{ type: 'text', text: 'ok' }] }, isError: false, shape: 'plain' },
          warnings: [],
        },
      },
    ],
    inbox: [
      {
        kind: 'asked',
        request: {
          key: '1:7',
          connectionId: 1,
          requestId: 7,
          method: 'elicitation/create',
          params: { message: 'Name?' },
          relatedTaskId: 't-1',
          receivedAt: 1_500,
        },
      },
      { kind: 'settled', key: '1:7', state: 'answered', outcome: 'accept', at: 1_550 },
    ],
    traffic: [
      {
        seq: 1,
        at: 10,
        wallTime: 1_000,
        direction: 'out',
        kind: 'request',
        method: 'tasks/get',
        id: 3,
        bytes: 71,
        message: { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { taskId: 't-1' } },
      },
      {
        seq: 2,
        at: 20,
        wallTime: 1_010,
        direction: 'in',
        kind: 'response',
        method: 'tasks/get',
        id: 3,
        bytes: 71,
        httpStatus: 200,
        requestSeq: 1,
        latencyMs: 10,
        http: {
          method: 'POST',
          url: 'http://127.0.0.1:3001/mcp',
          requestHeaders: { 'content-type': 'application/json' },
          status: 200,
          responseHeaders: { 'content-type': 'application/json' },
          wallStartedAt: 1_000,
          waitMs: 8,
        },
        message: { jsonrpc: '2.0', id: 3, result: { taskId: 't-1', status: 'completed' } },
      },
    ],
  };
}

/** The trace as a file would carry it: through JSON, with `change` applied to the parsed object. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests write malformed values anywhere in it
type AnyJson = Record<string, any>;
function mutated(change: (t: AnyJson) => void): unknown {
  const json = JSON.parse(JSON.stringify(sampleTrace())) as AnyJson;
  change(json);
  return json;
}

function errorsOf(input: unknown): string[] {
  const result = parseTrace(input);
  if (result.ok) throw new Error('expected the trace to be refused');
  return result.errors;
}

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < depth; i++) value = { deeper: value };
  return value;
}

describe('parseTrace', () => {
  it('accepts a trace as exported and gives the same trace back', () => {
    const trace = sampleTrace();
    const result = parseTrace(JSON.parse(JSON.stringify(trace)));
    if (!result.ok) throw new Error(result.errors.join('\n'));
    expect(result.trace).toEqual(trace);
    expect(result.warnings).toEqual([]);
  });

  it('accepts a trace with only the required fields of each part', () => {
    const result = parseTrace(
      mutated((t) => {
        t.receiver = { url: 'https://r.example/mcp' };
        t.tasks = [
          {
            taskId: 'x',
            origin: 'list',
            firstSeenAt: 1,
            status: null,
            lifecycle: 'live',
            entries: [],
          },
        ];
      }),
    );
    expect(result.ok).toBe(true);
  });

  it('refuses what is not a trace, and other versions, in one sentence', () => {
    expect(errorsOf([])).toEqual(['not a trace: expected a JSON object']);
    expect(errorsOf({ format: 'har' })[0]).toMatch(/not a Taskscope trace: "format" is "har"/);
    expect(errorsOf(mutated((t) => (t.version = 2)))).toEqual([
      'trace version 2 is newer than this Taskscope reads (1): update Taskscope to open it',
    ]);
    expect(errorsOf(mutated((t) => (t.version = 0)))[0]).toMatch(/version 0 is not supported/);
    expect(errorsOf(mutated((t) => delete t.version))[0]).toMatch(/version missing/);
  });

  it('refuses a javascript: or data: URL for the receiver or an HTTP exchange', () => {
    expect(errorsOf(mutated((t) => (t.receiver.url = 'javascript:alert(1)')))).toEqual([
      'receiver.url: not an http or https URL',
    ]);
    expect(errorsOf(mutated((t) => (t.traffic[1].http.url = 'data:text/html,<b>x</b>')))).toEqual([
      'traffic[1].http.url: not an http or https URL',
    ]);
  });

  it('refuses a string past its cap, naming where', () => {
    const errors = errorsOf(mutated((t) => (t.tasks[0].entries[1].statusMessage = 'x'.repeat(4_001))));
    expect(errors).toEqual(['tasks[0].entries[1].statusMessage: longer than 4000 characters']);
    expect(errorsOf(mutated((t) => (t.tasks[0].taskId = 'x'.repeat(600))))[0]).toMatch(
      /^tasks\[0\]\.taskId: longer than 512/,
    );
  });

  it('refuses a result nested too deep or too large, and accepts one at the limit', () => {
    expect(errorsOf(mutated((t) => (t.tasks[0].result.value.result = nested(65))))).toEqual([
      'tasks[0].result.value.result: nested deeper than 64 levels',
    ]);
    expect(
      errorsOf(mutated((t) => (t.tasks[0].result.value.result = { many: new Array(200_001).fill(0) }))),
    ).toEqual(['tasks[0].result.value.result: more than 200000 values']);
    expect(parseTrace(mutated((t) => (t.tasks[0].result.value.result = nested(64)))).ok).toBe(true);
  });

  it('refuses an unknown timeline entry kind and an unknown status', () => {
    expect(errorsOf(mutated((t) => (t.tasks[0].entries[2].kind = 'html')))[0]).toMatch(
      /^tasks\[0\]\.entries\[2\]\.kind: not a timeline entry: kind must be one of observation/,
    );
    expect(errorsOf(mutated((t) => (t.tasks[0].status = 'exploded')))[0]).toMatch(/^tasks\[0\]\.status:/);
  });

  it('refuses more tasks than the cap, and a task id twice', () => {
    const many = mutated((t) => {
      t.tasks = Array.from({ length: 10_001 }, (_, i) => ({ ...t.tasks[0], taskId: `t-${i}` }));
    });
    expect(errorsOf(many)[0]).toMatch(/^tasks: Too big/);
    const twice = mutated((t) => t.tasks.push(t.tasks[0]));
    expect(errorsOf(twice)).toEqual(['tasks: task t-1 appears more than once']);
  });

  it('reports at most twenty problems', () => {
    const errors = errorsOf(
      mutated((t) => {
        t.tasks[0].entries = Array.from({ length: 30 }, () => ({ kind: 'nope', at: 1 }));
      }),
    );
    expect(errors).toHaveLength(21);
    expect(errors[20]).toBe('… and 10 more problems');
  });

  it('cuts a traffic body nested past the log limits, with a warning, and keeps the rest', () => {
    const result = parseTrace(mutated((t) => (t.traffic[0].message = nested(200))));
    if (!result.ok) throw new Error(result.errors.join('\n'));
    expect(result.warnings).toEqual([
      '1 traffic message bodies were nested too deep or too large to show whole; they are cut',
    ]);
    expect(JSON.stringify(result.trace.traffic[0]!.message)).toContain('nested deeper than Taskscope shows');
  });

  it('recomputes each traffic body’s size instead of trusting the file', () => {
    const result = parseTrace(
      mutated((t) => {
        t.traffic[0].bytes = 999_999_999;
        t.traffic[1].bytes = -1;
        t.traffic.push({
          ...t.traffic[1],
          seq: 3,
          message: { omitted: '500000 bytes, too large' },
          bytes: 500_000,
        });
      }),
    );
    if (!result.ok) throw new Error(result.errors.join('\n'));
    expect(result.trace.traffic.map((e) => e.bytes)).toEqual([71, 71, 500_000]);
  });

  it('refuses a recording longer than a year, or with times far outside its span, saying why', () => {
    // A preserved log keeps days of history: that is a trace like any other.
    expect(parseTrace(mutated((t) => (t.endedAt = t.startedAt + 2 * 86_400_000))).ok).toBe(true);
    expect(errorsOf(mutated((t) => (t.endedAt = t.startedAt + 367 * 86_400_000)))[0]).toMatch(
      /^endedAt: the recording spans more than 366 days/,
    );
    expect(errorsOf(mutated((t) => (t.endedAt = t.startedAt - 1)))[0]).toMatch(/ends before it starts/);
    expect(errorsOf(mutated((t) => (t.traffic[1].wallTime = 9e12)))[0]).toMatch(
      /^traffic\[1\]\.wallTime: a time more than a minute outside/,
    );
    expect(errorsOf(mutated((t) => (t.tasks[0].entries[2].at = -5e6)))[0]).toMatch(
      /^tasks\[0\]\.entries\[2\]\.at/,
    );
    // Within a minute of the span is a clock read a moment apart, not a lie.
    expect(parseTrace(mutated((t) => (t.traffic[1].wallTime = t.endedAt + 30_000))).ok).toBe(true);
  });

  it('says which top-level fields it ignored', () => {
    const result = parseTrace(mutated((t) => (t.comment = 'hi')));
    expect(result.ok && result.warnings).toEqual(['ignored fields this Taskscope does not know: comment']);
  });

  it('keeps a __proto__ key from becoming a prototype', () => {
    const result = parseTraceText(
      JSON.stringify(sampleTrace()).replace('"X-Team":"blue"', '"X-Team":"blue","__proto__":"x"'),
    );
    if (!result.ok) throw new Error(result.errors.join('\n'));
    expect(Object.getPrototypeOf(result.trace.receiver.headers)).toBe(Object.prototype);
  });

  it('refuses text that is not JSON, or larger than the cap, before parsing', () => {
    expect(parseTraceText('{nope')).toMatchObject({
      ok: false,
      errors: [expect.stringMatching(/^not JSON/)],
    });
    const huge = { length: MAX_TRACE_BYTES + 1 } as unknown as string;
    expect(parseTraceText(huge)).toEqual({ ok: false, errors: ['the file is larger than 128 MB'] });
  });
});

describe('the published JSON Schema', () => {
  it('public/trace.schema.json is what npm run trace:schema writes from the zod schema', () => {
    const committed: unknown = JSON.parse(
      readFileSync(new URL(`../../../${TRACE_SCHEMA_PATH}`, import.meta.url), 'utf8'),
    );
    expect(committed, 'out of date: run npm run trace:schema').toEqual(traceJsonSchema());
  });
});
