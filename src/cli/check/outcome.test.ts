import { describe, expect, it } from 'vitest';
import { countVerdicts } from '../../rules/evaluate';
import type { ReportCard, RuleId, RuleResult, Verdict } from '../../rules/report-types';
import { UsageError } from '../start/args';
import { judgeRun, parseBaseline } from './outcome';
import { junitXml } from './outputs';

const rule = (id: RuleId, verdict: Verdict): RuleResult => ({
  id,
  verdict,
  observations: verdict === 'unobserved' ? 0 : 1,
  reason: `${id} ${verdict}`,
  source: 'passive',
});

const card = (...rules: RuleResult[]): ReportCard => ({
  receiver: { url: 'http://127.0.0.1:1/mcp', era: '2025-11-25' },
  generatedAt: 0,
  rules,
  counts: countVerdicts(rules),
});

describe('what a check run comes to', () => {
  it('fails on a fail; on a warning only with --fail-on warn; never on info or unobserved', () => {
    const warned = card(
      rule('ttl-not-kept-beyond', 'warn'),
      rule('pushes-sent', 'info'),
      rule('ttl-present', 'unobserved'),
    );
    expect(judgeRun(warned, { failOn: 'fail' })).toMatchObject({ outcome: 'pass', exitCode: 0 });
    expect(judgeRun(warned, { failOn: 'warn' })).toMatchObject({
      outcome: 'fail',
      exitCode: 1,
      reason: 'failed: ttl-not-kept-beyond',
    });
    expect(judgeRun(card(rule('ttl-present', 'fail')), { failOn: 'fail' }).exitCode).toBe(1);
  });

  it('a failure beats incomplete; incomplete beats a pass', () => {
    expect(
      judgeRun(card(rule('ttl-present', 'fail')), { failOn: 'fail', incomplete: 'no tool' }).exitCode,
    ).toBe(1);
    expect(
      judgeRun(card(rule('ttl-present', 'pass')), { failOn: 'fail', incomplete: 'no tool' }),
    ).toMatchObject({
      outcome: 'incomplete',
      exitCode: 3,
      reason: 'no tool',
    });
  });

  it('a baseline entry that fails is expected; one that passes or warns is stale; one not observed is neither', () => {
    const baseline = parseBaseline(
      '{"expectedFailures": ["ttl-present", "list-paging", "pushes-sent"]}',
      'b.json',
    );
    const run = judgeRun(
      card(rule('ttl-present', 'fail'), rule('list-paging', 'warn'), rule('pushes-sent', 'unobserved')),
      { failOn: 'fail', baseline },
    );
    expect(run.rules.map((r) => r.baseline)).toEqual(['expected', 'stale', undefined]);
    expect(run).toMatchObject({ exitCode: 1, reason: 'failed: list-paging (stale baseline entry)' });
    const xml = junitXml(card(rule('ttl-present', 'fail'), rule('list-paging', 'warn')), run);
    expect(xml).toContain('type="stale-baseline"');
    expect(xml).toContain('<skipped message="expected failure (baseline)');
  });

  it('reads a baseline as an object or a bare list, and refuses what is not a rule id', () => {
    expect([...parseBaseline('["ttl-present"]', 'b')]).toEqual(['ttl-present']);
    expect(() => parseBaseline('{"expected": []}', 'b')).toThrow(UsageError);
    expect(() => parseBaseline('not json', 'b')).toThrow(/not JSON/);
    expect(() => parseBaseline('[42]', 'b')).toThrow(/42 is not a rule id/);
  });

  it('writes receiver text into JUnit XML as text: markup and forbidden characters cannot escape', () => {
    const hostile = {
      ...rule('ttl-present', 'fail'),
      reason: 'a </failure><testcase name="x"> & \u0001 "q"',
    };
    const xml = junitXml(card(hostile), judgeRun(card(hostile), { failOn: 'fail' }));
    expect(xml).toContain('a &lt;/failure&gt;&lt;testcase name=&quot;x&quot;&gt; &amp;  &quot;q&quot;');
    expect(xml).not.toContain('\u0001');
  });
});
