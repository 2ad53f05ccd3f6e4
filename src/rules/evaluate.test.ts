import { describe, expect, it } from 'vitest';
import { countVerdicts, evaluateReport, judgeTogether, mergeFindings } from './evaluate';
import { RULES, rulesFor, strengthFor } from './catalogue';
import type { RuleResult } from './report-types';
import { newTrackedTask, type ObservationEntry } from '../tracker/task-store';
import { TrafficTap } from '../mcp';
import { oneTaskReport, trafficExchanges } from '../../test/helpers/task-records';

const result = (id: RuleResult['id'], verdict: RuleResult['verdict'], source: RuleResult['source']) => ({
  id,
  verdict,
  observations: 1,
  reason: `${source} ${verdict}`,
  source,
});

const obs = (at: number, fields: Partial<ObservationEntry>): ObservationEntry => ({
  kind: 'observation',
  at,
  source: 'poll',
  sentAt: at - 5,
  status: 'working',
  warnings: [],
  ...fields,
});

describe('rule catalogue', () => {
  it('every rule has a link and the quoted sentence for each generation it applies to', () => {
    for (const rule of RULES)
      for (const [era, link] of Object.entries(rule.spec)) {
        expect(link, rule.id).toMatch(/^https:\/\/[^ ]+#[a-z-]+$/);
        expect(rule.quote?.[era as keyof typeof rule.quote], rule.id).toBeTruthy();
      }
    expect(new Set(RULES.map((r) => r.id)).size).toBe(RULES.length);
    expect(rulesFor('2026-07-28').some((r) => r.id === 'result-related-meta')).toBe(false);
    expect(
      strengthFor(
        RULES.find((r) => r.id === 'failed-result-explains')!,
        '2026-07-28',
      ),
    ).toBe('MUST');
  });
});

describe('evaluateReport', () => {
  const input = oneTaskReport;

  it('a terminal status that changes fails the MUST, with the first offence to open the task at', () => {
    const card = evaluateReport(
      input([
        obs(1000, { source: 'create', sentAt: 900, ttl: 60_000, pollInterval: 100 }),
        obs(2000, { status: 'completed', ttl: 60_000 }),
        obs(3000, { status: 'working', ttl: 60_000, pollInterval: 100 }),
      ]),
    );
    const rule = card.rules.find((r) => r.id === 'status-transitions')!;
    expect(rule).toMatchObject({ verdict: 'fail', firstOffence: { taskId: 't1', at: 3000 } });
    expect(card.counts.fail).toBe(1);
  });

  it('an answer asked before the terminal one arrived is older news, not a transition', () => {
    const card = evaluateReport(
      input([
        obs(1000, { source: 'create', sentAt: 900, ttl: 60_000 }),
        obs(2000, { status: 'cancelled', source: 'cancel', sentAt: 1900, ttl: 60_000 }),
        obs(2100, { status: 'working', sentAt: 1950, ttl: 60_000 }),
      ]),
    );
    expect(card.rules.find((r) => r.id === 'status-transitions')?.verdict).toBe('pass');
  });

  it('a missing pollInterval is information (MAY), never a fail; nothing to judge is unobserved', () => {
    const card = evaluateReport(input([obs(1000, { source: 'create', ttl: 60_000 })]));
    expect(card.rules.find((r) => r.id === 'poll-interval-present')?.verdict).toBe('info');
    expect(card.rules.find((r) => r.id === 'ttl-not-purged-early')?.verdict).toBe('unobserved');
  });
});

describe('mergeFindings and countVerdicts', () => {
  it('an active finding outranks the passive one, unless it judged nothing', () => {
    const passive = [
      result('status-transitions', 'pass', 'passive'),
      result('unknown-task-error', 'unobserved', 'passive'),
      result('ttl-present', 'pass', 'passive'),
    ];
    const merged = mergeFindings(passive, [
      result('unknown-task-error', 'fail', 'active'),
      result('ttl-present', 'unobserved', 'active'),
      result('list-paging', 'pass', 'active'),
    ]);
    expect(merged.map((r) => [r.id, r.verdict, r.source])).toEqual([
      ['status-transitions', 'pass', 'passive'],
      ['unknown-task-error', 'fail', 'active'],
      ['ttl-present', 'pass', 'passive'],
      ['list-paging', 'pass', 'active'],
    ]);
    expect(countVerdicts(merged)).toEqual({ pass: 3, fail: 1, warn: 0, info: 0, unobserved: 0 });
  });

  it('on the card, a problem the tracker saw stands against an active pass; otherwise the check decides', () => {
    const passive = [
      result('status-transitions', 'fail', 'passive'),
      result('ttl-present', 'warn', 'passive'),
      result('unknown-task-error', 'pass', 'passive'),
      result('requested-ttl-honoured', 'info', 'passive'),
    ];
    const card = judgeTogether(passive, [
      result('status-transitions', 'pass', 'active'),
      result('ttl-present', 'fail', 'active'),
      result('unknown-task-error', 'fail', 'active'),
      result('requested-ttl-honoured', 'pass', 'active'),
    ]);
    expect(card.map((r) => [r.id, r.verdict, r.source])).toEqual([
      ['status-transitions', 'fail', 'passive'],
      ['ttl-present', 'fail', 'active'],
      ['unknown-task-error', 'fail', 'active'],
      ['requested-ttl-honoured', 'pass', 'active'],
    ]);
  });
});

describe('no false fails', () => {
  type Event = import('../mcp').TrafficEvent;
  const base = {
    receiver: { url: 'https://user:pw@r.example/mcp?api_key=secret', era: '2025-11-25' as const },
    support: { list: true, cancel: true, toolCall: true },
    results: new Map(),
    clockOffsetMs: 0,
    clockSamples: 1,
    now: 100_000,
  };
  const task = (taskId: string, entries: ObservationEntry[], fields: Record<string, unknown> = {}) => ({
    ...newTrackedTask({ taskId, connectionId: 1, origin: 'created', firstSeenAt: 0 }),
    entries,
    ...fields,
  });
  const exchange = trafficExchanges();
  const verdict = (card: ReturnType<typeof evaluateReport>, id: RuleResult['id']) =>
    card.rules.find((r) => r.id === id)?.verdict;

  it('an HTTP failure counts by the JSON-RPC error in its body, as guarded-fetch records it', () => {
    const tools = [
      { name: 'quick', taskSupport: 'forbidden' as const, inputSchema: {} },
      { name: 'job', taskSupport: 'required' as const, inputSchema: {} },
    ];
    // The recorder itself, fed as src/mcp/guarded-fetch.ts feeds it for a POST refused with an HTTP status.
    const tap = new TrafficTap(() => 0, 500);
    const traffic: Event[] = [];
    tap.subscribe((event) => traffic.push(event));
    const refused = (id: number, params: unknown, status: number, body: string) => {
      tap.record('out', { jsonrpc: '2.0', id, method: 'tools/call', params });
      tap.record(
        'in',
        { httpStatus: status, body },
        { httpStatus: status, kind: 'http-error', inReplyTo: id },
      );
    };
    // A rate limit and a gateway's page are no verdict on the rule.
    refused(1, { name: 'quick', task: {} }, 429, 'Too Many Requests');
    refused(2, { name: 'job' }, 502, '<html>bad gateway</html>');
    // A -32601 sent with HTTP 404 is the receiver's answer all the same.
    refused(
      3,
      { name: 'job' },
      404,
      JSON.stringify({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'must be a task' } }),
    );
    expect(traffic.filter((e) => e.kind === 'http-error').every((e) => e.requestSeq !== undefined)).toBe(
      true,
    );
    const card = evaluateReport({ ...base, tools, tasks: [], traffic });
    expect(verdict(card, 'capability-absent-error')).toBe('unobserved');
    expect(card.rules.find((r) => r.id === 'tool-task-support')).toMatchObject({
      verdict: 'pass',
      observations: 1,
    });
  });

  it('an HTTP 4xx refusing a forbidden task call with -32601 in its body is judged too', () => {
    const tools = [{ name: 'quick', taskSupport: 'forbidden' as const, inputSchema: {} }];
    const traffic = exchange(
      'tools/call',
      { name: 'quick', task: {} },
      {
        httpStatus: 400,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'no task here' } }),
      },
      { kind: 'http-error', httpStatus: 400 },
    );
    const card = evaluateReport({ ...base, tools, tasks: [], traffic });
    expect(card.rules.find((r) => r.id === 'capability-absent-error')).toMatchObject({
      verdict: 'pass',
      observations: 1,
    });
  });

  it('names the receiver without its credentials (the card goes to public issue trackers)', () => {
    const card = evaluateReport({ ...base, tools: [], tasks: [], traffic: [] });
    expect(card.receiver.url).not.toMatch(/pw|secret/);
  });

  it('tasks/result of a failed task answering its call’s error is no unknown-task evidence', () => {
    const failed = task('t1', [obs(1000, { status: 'failed', ttl: 60_000 })], { lifecycle: 'terminal' });
    const traffic = exchange(
      'tasks/result',
      { taskId: 't1' },
      { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'upstream not found' } },
      { kind: 'error' },
    );
    const card = evaluateReport({ ...base, tools: [], tasks: [failed], traffic });
    expect(verdict(card, 'unknown-task-error')).toBe('unobserved');
  });

  it('a task first listed from a receiver whose clock is ahead is not "in the future"', () => {
    const ahead = 3_600_000;
    const listed = task('t1', [
      obs(1000, {
        source: 'list',
        lastUpdatedAt: new Date(1000 + ahead).toISOString(),
        warnings: [{ code: 'bad-timestamp', message: 'lastUpdatedAt is 3600 s ahead of the local clock' }],
      }),
    ]);
    const card = evaluateReport({ ...base, tools: [], tasks: [listed], traffic: [], clockOffsetMs: ahead });
    expect(verdict(card, 'timestamps-not-future')).toBe('pass');
  });

  it('a receiver seen only through listings has no clock estimate yet: the future is not judged', () => {
    const ahead = 3_600_000;
    const listed = task('t1', [
      obs(1000, { source: 'list', lastUpdatedAt: new Date(1000 + ahead).toISOString() }),
    ]);
    const card = evaluateReport({ ...base, tools: [], tasks: [listed], traffic: [], clockSamples: 0 });
    expect(card.rules.find((r) => r.id === 'timestamps-not-future')).toMatchObject({
      verdict: 'unobserved',
      reason: expect.stringMatching(/clock is not known/),
    });
  });

  it('a create answer already past working is legal', () => {
    const quick = task('t1', [obs(1000, { source: 'create', status: 'completed', ttl: 60_000 })]);
    expect(
      verdict(evaluateReport({ ...base, tools: [], tasks: [quick], traffic: [] }), 'status-transitions'),
    ).toBe('pass');
  });

  it('a push contradicts an answer only with a strictly later lastUpdatedAt', () => {
    const same = new Date(2000).toISOString();
    const t = task('t1', [
      obs(2000, { status: 'completed', lastUpdatedAt: same }),
      obs(2100, { source: 'notification', status: 'working', lastUpdatedAt: same }),
      obs(2200, { source: 'notification', status: 'working' }),
    ]);
    expect(
      verdict(evaluateReport({ ...base, tools: [], tasks: [t], traffic: [] }), 'pushes-consistent'),
    ).toBe('pass');
  });

  it('a purge within a poll interval and a second of the ttl is on time; a cancelled task may go at once', () => {
    const created = new Date(0).toISOString();
    const slowPoll = task(
      't1',
      [obs(1000, { source: 'create', createdAt: created, ttl: 10_000, pollInterval: 5000 })],
      { lifecycle: 'purged' },
    );
    slowPoll.entries.push({
      kind: 'purged',
      at: 6000,
      error: { kind: 'not-found', message: 'gone' },
    } as never);
    const cancelled = task(
      't2',
      [
        obs(1000, { source: 'create', createdAt: created, ttl: 60_000, pollInterval: 100 }),
        obs(1500, { source: 'cancel', status: 'cancelled', ttl: 60_000 }),
      ],
      { lifecycle: 'purged' },
    );
    cancelled.entries.push({
      kind: 'purged',
      at: 1600,
      error: { kind: 'not-found', message: 'gone' },
    } as never);
    const card = evaluateReport({ ...base, tools: [], tasks: [slowPoll, cancelled], traffic: [] });
    expect(card.rules.find((r) => r.id === 'ttl-not-purged-early')).toMatchObject({
      verdict: 'pass',
      observations: 1,
    });
  });

  it('a cut result is not judged for its related-task _meta', () => {
    const results = new Map([
      [
        't1',
        {
          value: { shape: 'plain', result: { content: [] }, isError: false },
          warnings: [{ code: 'bad-result', message: 'result nested deeper than 64 levels; shown cut' }],
        },
      ],
    ]);
    const card = evaluateReport({ ...base, tools: [], tasks: [], traffic: [], results: results as never });
    expect(verdict(card, 'result-related-meta')).toBe('unobserved');
  });
});
