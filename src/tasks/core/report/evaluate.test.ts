import { describe, expect, it } from 'vitest';
import { countVerdicts, evaluateReport, judgeTogether, mergeFindings } from './evaluate';
import { RULES, rulesFor, strengthFor } from './rules';
import type { RuleResult } from './report-types';
import { newTrackedTask, type ObservationEntry } from '../store';

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
  const input = (entries: ObservationEntry[]) => ({
    receiver: { url: 'http://127.0.0.1:1/mcp', era: '2025-11-25' as const },
    support: { list: true, cancel: true, toolCall: true },
    tools: [],
    tasks: [
      { ...newTrackedTask({ taskId: 't1', connectionId: 1, origin: 'created', firstSeenAt: 0 }), entries },
    ],
    results: new Map(),
    traffic: [],
    clockOffsetMs: 0,
    now: 10_000,
  });

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
