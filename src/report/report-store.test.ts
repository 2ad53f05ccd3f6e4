import { beforeEach, describe, expect, it } from 'vitest';
import type { ActiveCheckState, RuleResult } from '../rules/report-types';
import { applyCheckNews, currentCheck, useReport } from './report-store';

const finding = (id: RuleResult['id'], verdict: RuleResult['verdict']): RuleResult => ({
  id,
  verdict,
  observations: 1,
  reason: `${id} ${verdict}`,
  source: 'active',
});

const run = (startedAt: number, findings: RuleResult[], running = false): ActiveCheckState => ({
  running,
  startedAt,
  steps: [],
  findings,
});

beforeEach(() => useReport.setState({ check: undefined }));

describe('the active check on the page', () => {
  it('keeps what an earlier run found under a later (stopped) run, per connection', () => {
    applyCheckNews(1, run(100, [finding('list-paging', 'pass'), finding('unknown-task-error', 'fail')]));
    applyCheckNews(1, run(200, [], true));
    applyCheckNews(1, run(200, [finding('unknown-task-error', 'pass')]));
    const check = currentCheck(useReport.getState(), 1);
    expect(check?.startedAt).toBe(200);
    expect(check?.findings.map((f) => [f.id, f.verdict])).toEqual([
      ['list-paging', 'pass'],
      ['unknown-task-error', 'pass'],
    ]);
    // Another connection starts without any.
    expect(currentCheck(useReport.getState(), 2)).toBeUndefined();
    applyCheckNews(2, run(300, [finding('ttl-present', 'pass')]));
    expect(currentCheck(useReport.getState(), 2)?.findings.map((f) => f.id)).toEqual(['ttl-present']);
  });
});
