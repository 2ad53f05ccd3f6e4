import { describe, expect, it } from 'vitest';
import { normaliseTask } from './normalise';
import { normaliseResult } from './normalise-result';
import * as F from '../../test/fixtures/shapes';

const codes = (warnings: { code: string }[]) => warnings.map((w) => w.code);

describe('normaliseTask', () => {
  it('reads the 2025-11-25 flat task without warnings', () => {
    const { value, warnings } = normaliseTask(F.flatTask, { expectedTaskId: 'abc' });
    expect(warnings).toEqual([]);
    expect(value).toMatchObject({
      taskId: 'abc',
      status: 'working',
      statusMessage: 'Step 1/3',
      ttl: 60_000,
      pollInterval: 1000,
      createdAtMs: Date.parse(F.T0),
      lastUpdatedAtMs: Date.parse(F.T1),
      shape: 'flat',
    });
  });

  it('unwraps the user documents’ {task} shape', () => {
    const { value, warnings } = normaliseTask(F.wrappedTask, { expectedTaskId: 'abc' });
    expect(warnings).toEqual([]);
    expect(value).toMatchObject({ taskId: 'abc', status: 'working', shape: 'wrapped' });
  });

  it('keeps ttl null as "no expiry"', () => {
    expect(normaliseTask({ ...F.flatTask, ttl: null }).value?.ttl).toBeNull();
  });

  it('recognises the 2026-07-28 shape and says so', () => {
    const { value, warnings } = normaliseTask(F.v2Task);
    expect(value).toMatchObject({ taskId: 'v2-1', ttl: 30_000, pollInterval: 500, shape: 'v2' });
    expect(codes(warnings)).toEqual(['newer-protocol']);
  });

  it('flags an unknown status and leaves the status unset', () => {
    const { value, warnings } = normaliseTask({ ...F.flatTask, status: 'bogus' });
    expect(value?.status).toBeNull();
    expect(warnings.find((w) => w.code === 'unknown-status')?.message).toBe(
      "unknown status 'bogus', ignored",
    );
  });

  it('flags missing and non-ISO timestamps', () => {
    const { createdAt: _c, ...noCreated } = F.flatTask;
    const { value, warnings } = normaliseTask({ ...noCreated, lastUpdatedAt: 'yesterday' });
    expect(value?.createdAtMs).toBeUndefined();
    expect(value?.lastUpdatedAtMs).toBeUndefined();
    expect(codes(warnings)).toContain('bad-timestamp');
    expect(warnings.map((w) => w.message)).toEqual(
      expect.arrayContaining([
        'createdAt is missing',
        "lastUpdatedAt 'yesterday' is not an ISO 8601 time, ignored",
      ]),
    );
  });

  it('flags a ttl that is neither a number nor null', () => {
    const { value, warnings } = normaliseTask({ ...F.flatTask, ttl: '60s' });
    expect(value?.ttl).toBeUndefined();
    expect(codes(warnings)).toContain('bad-ttl');
  });

  it.each([
    [-5, undefined],
    [Number.NaN, undefined],
    ['1000', undefined],
    [0, 100],
    [20, 100],
  ])('flags pollInterval %s and uses %s', (pollInterval, used) => {
    const { value, warnings } = normaliseTask({ ...F.flatTask, pollInterval });
    expect(value?.pollInterval).toBe(used);
    expect(codes(warnings)).toContain('bad-poll-interval');
  });

  it('honours but flags an absurd pollInterval', () => {
    const { value, warnings } = normaliseTask({ ...F.flatTask, pollInterval: 86_400_000 });
    expect(value?.pollInterval).toBe(86_400_000);
    expect(codes(warnings)).toContain('bad-poll-interval');
  });

  it('flags an illegal move out of a terminal status', () => {
    const previous = normaliseTask({ ...F.flatTask, status: 'completed' }).value!;
    const { warnings } = normaliseTask(F.flatTask, { previous });
    expect(warnings.find((w) => w.code === 'illegal-transition')?.message).toBe(
      'status moved completed → working, but terminal statuses never change',
    );
  });

  it('flags lastUpdatedAt going backwards', () => {
    const previous = normaliseTask(F.flatTask).value!;
    const { warnings } = normaliseTask({ ...F.flatTask, lastUpdatedAt: F.T0 }, { previous });
    expect(codes(warnings)).toContain('time-went-backwards');
  });

  it('flags a taskId that does not match the request', () => {
    const { value, warnings } = normaliseTask(F.flatTask, { expectedTaskId: 'xyz' });
    expect(value?.taskId).toBe('abc');
    expect(codes(warnings)).toContain('task-id-mismatch');
  });

  it('cuts an overlong statusMessage, and says so', () => {
    const { value, warnings } = normaliseTask({ ...F.flatTask, statusMessage: 'x'.repeat(50_000) });
    expect(value?.statusMessage).toHaveLength(4000);
    expect(warnings[0]?.message).toBe('statusMessage of 50000 characters cut to 4000');
  });

  it('assumes the asked-for id when the answer has none', () => {
    const { taskId: _t, ...noId } = F.flatTask;
    const { value, warnings } = normaliseTask(noId, { expectedTaskId: 'abc' });
    expect(value?.taskId).toBe('abc');
    expect(codes(warnings)).toContain('missing-task-id');
  });

  it.each([null, undefined, 42, 'task', [], [F.flatTask]])(
    'returns no task for %j, with a warning',
    (raw) => {
      const { value, warnings } = normaliseTask(raw);
      expect(value).toBeNull();
      expect(warnings.length).toBeGreaterThan(0);
    },
  );
});

describe('normaliseResult', () => {
  it('reads the 2025-11-25 plain CallToolResult', () => {
    const { value, warnings } = normaliseResult(F.plainResult, { expectedTaskId: 'abc' });
    expect(warnings).toEqual([]);
    expect(value).toMatchObject({ shape: 'plain', isError: false, result: { content: [{ text: 'done' }] } });
  });

  it('unwraps the user documents’ {taskId, status, result} envelope', () => {
    const { value, warnings } = normaliseResult(F.resultEnvelope, { expectedTaskId: 'abc' });
    expect(warnings).toEqual([]);
    expect(value).toMatchObject({
      shape: 'envelope',
      envelopeStatus: 'completed',
      result: { content: [{ text: 'done' }] },
    });
  });

  it.each([F.failedEnvelopeNoResult, F.failedEnvelopeAbsentResult])(
    'takes a failed envelope without a result as null',
    (raw) => {
      const { value, warnings } = normaliseResult(raw);
      expect(warnings).toEqual([]);
      expect(value).toMatchObject({ result: null, isError: true, envelopeStatus: 'failed' });
    },
  );

  it('marks isError results as errors', () => {
    expect(normaliseResult({ content: [], isError: true }).value.isError).toBe(true);
  });

  it('flags a result for another task', () => {
    const { warnings } = normaliseResult(F.plainResult, { expectedTaskId: 'other' });
    expect(codes(warnings)).toEqual(['task-id-mismatch']);
  });

  it('flags content that is not a CallToolResult, keeping it to show raw', () => {
    const { value, warnings } = normaliseResult({ content: 'not a list' });
    expect(value.result).toEqual({ content: 'not a list' });
    expect(warnings).toEqual([
      { code: 'schema', message: 'not a CallToolResult: content: expected array, received string' },
    ]);
  });

  it.each([
    // The user documents' "for resources/read it will be the resource content array": no tool result.
    [{ contents: [{ uri: 'file:///a', text: 'a' }] }, /no content array \(contents is what resources\/read/],
    [{}, /^not a CallToolResult: no content array$/],
    [{ structuredContent: { n: 1 } }, /no content array/],
    [{ content: [{ type: 'text' }, { type: 'nope' }] }, /content\.0 is not a content block \(and 1 more\)$/],
    [{ content: [], isError: 'yes' }, /isError: expected boolean, received string/],
    [{ content: [], structuredContent: [1, 2] }, /structuredContent: expected record, received array/],
  ])('names what makes %j no CallToolResult, in one short warning', (raw, message) => {
    const { value, warnings } = normaliseResult(raw);
    expect(value.result).toEqual(raw);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: 'schema', message: expect.stringMatching(message) });
    expect(warnings[0]!.message.length).toBeLessThanOrEqual(200);
  });

  it('judges the shape of an envelope’s result, never of a result shown raw or cut', () => {
    const wrapped = normaliseResult({ taskId: 'abc', status: 'completed', result: { contents: [] } });
    expect(codes(wrapped.warnings)).toEqual(['schema']);
    expect(codes(normaliseResult({ taskId: 'abc', status: 'completed', result: [1] }).warnings)).toEqual([
      'bad-result',
    ]);
    let deep: Record<string, unknown> = { depth: 100 };
    for (let i = 0; i < 100; i++) deep = { a: deep };
    const cut = normaliseResult({ content: [], structuredContent: deep });
    expect(codes(cut.warnings)).toEqual(['bad-result']);
  });

  it('a full CallToolResult passes: every content block kind, structuredContent, isError', () => {
    const { warnings } = normaliseResult({
      content: [
        { type: 'text', text: 't' },
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///a', name: 'a' },
        { type: 'resource', resource: { uri: 'file:///b', text: 'b' } },
      ],
      structuredContent: { ok: true },
      isError: false,
    });
    expect(warnings).toEqual([]);
  });

  it('wraps a scalar envelope result so it can still be shown', () => {
    const { value, warnings } = normaliseResult({ taskId: 'abc', status: 'completed', result: 42 });
    expect(value.result).toEqual({ value: 42 });
    expect(codes(warnings)).toEqual(['bad-result']);
  });
});
