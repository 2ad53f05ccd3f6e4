/**
 * What a `taskscope check` or `taskscope proxy` run comes to: each rule judged marked failing or not (by
 * --fail-on and the baseline), and one outcome with its exit code. Every output (terminal, JUnit, JSON) reads
 * this one model.
 */
import { RULE_BY_ID } from '../../rules/catalogue';
import { CLIENT_RULE_BY_ID, type ClientRuleId } from '../../rules/client-catalogue';
import type { ReportCard, RuleId, RuleResult, Verdict } from '../../rules/report-types';
import { UsageError } from '../start/args';

export const EXIT = { pass: 0, fail: 1, usage: 2, incomplete: 3, unreachable: 4 } as const;

export type Outcome = 'pass' | 'fail' | 'incomplete' | 'unreachable';

export interface JudgedRule<R extends Judged = RuleResult> {
  rule: R;
  /** The verdict counts against the run (fail, or warn under --fail-on warn), baseline aside. */
  failing: boolean;
  /** expected: failing and listed in the baseline (not counted); stale: listed and no longer failing. */
  baseline?: 'expected' | 'stale';
}

/** What the outcome reads of a rule's result, either side's. */
export interface Judged {
  id: RuleId | ClientRuleId;
  verdict: Verdict;
}

export interface CheckRun<R extends Judged = RuleResult> {
  outcome: Outcome;
  exitCode: number;
  /** Why the run is incomplete or the receiver unreachable; what failed otherwise. */
  reason: string;
  rules: JudgedRule<R>[];
}

export type Baseline = ReadonlySet<RuleId | ClientRuleId>;

const isRuleId = (id: string): id is RuleId | ClientRuleId =>
  RULE_BY_ID.has(id as RuleId) || CLIENT_RULE_BY_ID.has(id as ClientRuleId);

/** Reads a baseline file's text: {"expectedFailures": [...]} or a bare array of rule ids. */
export function parseBaseline(text: string, file: string): Baseline {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--baseline ${file}: not JSON (${(error as Error).message})`);
  }
  const list = Array.isArray(value)
    ? value
    : typeof value === 'object' &&
        value !== null &&
        Array.isArray((value as Record<string, unknown>).expectedFailures)
      ? ((value as Record<string, unknown>).expectedFailures as unknown[])
      : undefined;
  if (!list) throw new UsageError(`--baseline ${file}: expected {"expectedFailures": ["rule-id", …]}`);
  const ids = new Set<RuleId | ClientRuleId>();
  for (const id of list) {
    if (typeof id !== 'string' || !isRuleId(id))
      throw new UsageError(
        `--baseline ${file}: ${JSON.stringify(id)} is not a rule id (they are listed in docs/rules.md)`,
      );
    ids.add(id);
  }
  return ids;
}

export interface RunOptions {
  failOn: 'fail' | 'warn';
  baseline?: Baseline;
  incomplete?: string;
}

export function judgeRun(card: ReportCard, options: RunOptions): CheckRun {
  return judgeRules(card.rules, options);
}

/** The outcome of any list of judged rules: the card's, or one observed client's. */
export function judgeRules<R extends Judged>(judged: readonly R[], options: RunOptions): CheckRun<R> {
  const counts = (rule: R) =>
    rule.verdict === 'fail' || (options.failOn === 'warn' && rule.verdict === 'warn');
  const rules: JudgedRule<R>[] = judged.map((rule) => {
    const failing = counts(rule);
    const listed = options.baseline?.has(rule.id) ?? false;
    // Not observed proves nothing fixed: a listed rule is stale only once it was judged and did not fail.
    const baseline = !listed
      ? undefined
      : failing
        ? 'expected'
        : rule.verdict === 'unobserved'
          ? undefined
          : 'stale';
    return { rule, failing, ...(baseline ? { baseline } : {}) };
  });
  const failed = rules.filter((r) => (r.failing && r.baseline !== 'expected') || r.baseline === 'stale');
  if (failed.length > 0) {
    const names = failed.map((r) =>
      r.baseline === 'stale' ? `${r.rule.id} (stale baseline entry)` : r.rule.id,
    );
    return { outcome: 'fail', exitCode: EXIT.fail, reason: `failed: ${names.join(', ')}`, rules };
  }
  if (options.incomplete !== undefined)
    return { outcome: 'incomplete', exitCode: EXIT.incomplete, reason: options.incomplete, rules };
  return { outcome: 'pass', exitCode: EXIT.pass, reason: 'every rule judged passes', rules };
}
