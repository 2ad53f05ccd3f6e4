/**
 * The run as a person reads it in a terminal, as JUnit XML for CI, and as versioned JSON (docs/cli.md). The
 * Markdown file is the page's own export (rules/report-markdown.ts); the trace is the page's (build-trace.ts).
 */
import type { Era } from '../../mcp';
import { oneLine } from '../../format/control-chars';
import { RULE_BY_ID, strengthFor } from '../../rules/catalogue';
import { VERDICT_ORDER, countsLine, offenceText } from '../../rules/report-markdown';
import type { Offence, ReportCard, Strength, Verdict } from '../../rules/report-types';
import type { CheckRun, Judged, JudgedRule } from './outcome';

/** What the run used besides the card: the tool it ran, and how it was chosen. */
export interface RunFacts {
  tool?: { name: string; args: Record<string, unknown>; chosenBy: 'flag' | 'auto' };
  failOn: 'fail' | 'warn';
  version: string;
}

const HEADING: Record<Verdict, string> = {
  fail: 'FAIL',
  warn: 'WARN',
  info: 'INFO',
  pass: 'PASS',
  unobserved: 'NOT OBSERVED',
};

const eraOf = (card: ReportCard): Era => card.receiver.era ?? '2025-11-25';

/** The card grouped by verdict as on the page: each rule with its strength, reason, evidence and spec. */
export function cardText(card: ReportCard, run: CheckRun, facts: RunFacts): string {
  const era = eraOf(card);
  const name = [card.receiver.name, card.receiver.version].filter(Boolean).join(' ');
  const lines = [
    `Taskscope report card${name ? `: ${oneLine(name)}` : ''}`,
    `  receiver  ${oneLine(card.receiver.url)}`,
    `  protocol  ${era}`,
    `  tool      ${facts.tool ? `${oneLine(facts.tool.name)} (${facts.tool.chosenBy === 'flag' ? 'as given' : 'picked: the first the check can run with defaults'})` : 'none'}`,
    `  verdicts  ${countsLine(card.counts)}`,
  ];
  for (const verdict of VERDICT_ORDER) {
    const group = run.rules.filter((r) => r.rule.verdict === verdict);
    if (group.length === 0) continue;
    lines.push('', `${HEADING[verdict]} (${group.length})`);
    for (const judged of group) lines.push(...ruleLines(judged, era));
  }
  const steps = card.active?.steps ?? [];
  if (steps.length > 0) {
    lines.push('', 'Active check');
    for (const step of steps)
      lines.push(`  ${step.state.padEnd(8)} ${step.title}${step.note ? `: ${oneLine(step.note)}` : ''}`);
  }
  lines.push('', `Result: ${run.outcome.toUpperCase()} (exit ${run.exitCode}): ${oneLine(run.reason)}`);
  return `${lines.join('\n')}\n`;
}

function ruleLines({ rule, baseline }: JudgedRule, era: Era): string[] {
  const def = RULE_BY_ID.get(rule.id);
  const strength = def ? strengthFor(def, era) : '';
  const tags = [strength, rule.source === 'active' ? 'active' : '', baseline ? `baseline: ${baseline}` : '']
    .filter(Boolean)
    .join(', ');
  const out = [`  ${def?.title ?? rule.id} [${rule.id}] (${tags})`, `      ${oneLine(rule.reason)}`];
  const offence = offenceText(rule.firstOffence);
  if (offence) out.push(`      evidence: ${oneLine(offence)}`);
  const spec = def?.spec[era];
  if (spec) out.push(`      spec: ${spec}`);
  return out;
}

/** Text inside XML: escaped, without the characters XML 1.0 cannot hold at all. */
export function xmlText(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- characters XML 1.0 forbids
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/[<>&"']/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' }[c]};`)
  );
}

/**
 * One judged rule as a JUnit testcase: failing (or a stale baseline entry) as <failure>, an expected failure and
 * a rule not observed as <skipped>, any other with its details in <system-out>. `check` and `proxy` both use it.
 */
export function junitRuleCase(
  classname: string,
  name: string,
  { rule, failing, baseline }: JudgedRule<Judged & { reason: string }>,
  detail: string,
): { lines: string[]; failed: boolean; skipped: boolean } {
  const open = `    <testcase classname="${classname}" name="${xmlText(name)}" time="0">`;
  const close = '    </testcase>';
  if (baseline === 'stale')
    return {
      lines: [
        open,
        `      <failure message="${xmlText(`stale baseline entry: ${rule.id} no longer fails (${rule.verdict}); remove it from the baseline`)}" type="stale-baseline">${xmlText(detail)}</failure>`,
        close,
      ],
      failed: true,
      skipped: false,
    };
  if (baseline === 'expected')
    return {
      lines: [
        open,
        `      <skipped message="${xmlText(`expected failure (baseline): ${rule.reason}`)}"/>`,
        close,
      ],
      failed: false,
      skipped: true,
    };
  if (failing)
    return {
      lines: [
        open,
        `      <failure message="${xmlText(rule.reason)}" type="${rule.verdict}">${xmlText(detail)}</failure>`,
        close,
      ],
      failed: true,
      skipped: false,
    };
  if (rule.verdict === 'unobserved')
    return {
      lines: [open, `      <skipped message="${xmlText(`not observed: ${rule.reason}`)}"/>`, close],
      failed: false,
      skipped: true,
    };
  return {
    lines: [open, `      <system-out>${xmlText(detail)}</system-out>`, close],
    failed: false,
    skipped: false,
  };
}

/**
 * JUnit XML: one testsuite, one testcase per rule. Failing rules are <failure>, rules not observed and
 * expected failures (the baseline) are <skipped>; an incomplete run adds one testcase with an <error>.
 */
export function junitXml(card: ReportCard, run: CheckRun): string {
  const era = eraOf(card);
  const seconds = (
    ((card.active?.endedAt ?? card.generatedAt) - (card.active?.startedAt ?? card.generatedAt)) /
    1000
  ).toFixed(3);
  const cases: string[] = [];
  let failures = 0;
  let skipped = 0;
  for (const { rule, failing, baseline } of run.rules) {
    const def = RULE_BY_ID.get(rule.id);
    const name = `${rule.id}: ${def?.title ?? rule.id}`;
    const strength = def ? strengthFor(def, era) : '';
    const detail = [
      `verdict: ${rule.verdict} (${strength}, ${rule.source}, ${rule.observations} observation${rule.observations === 1 ? '' : 's'})`,
      `reason: ${rule.reason}`,
      ...(rule.firstOffence ? [`evidence: ${offenceText(rule.firstOffence)}`] : []),
      ...(def?.spec[era] ? [`spec: ${def.spec[era]}`] : []),
    ].join('\n');
    const one = junitRuleCase(
      `taskscope.${era}`,
      name,
      { rule, failing, ...(baseline ? { baseline } : {}) },
      detail,
    );
    if (one.failed) failures++;
    if (one.skipped) skipped++;
    cases.push(...one.lines);
  }
  let errors = 0;
  if (run.outcome === 'incomplete' || run.outcome === 'unreachable') {
    errors = 1;
    cases.push(
      `    <testcase classname="taskscope.${era}" name="active check" time="${seconds}">`,
      `      <error message="${xmlText(`${run.outcome}: ${run.reason}`)}" type="${run.outcome}"/>`,
      '    </testcase>',
    );
  }
  const tests = run.rules.length + errors;
  const suite = `taskscope check ${card.receiver.url}`;
  const stamp = new Date(card.generatedAt).toISOString().replace(/\.\d+Z$/, '');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="taskscope check" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds}">`,
    `  <testsuite name="${xmlText(suite)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds}" timestamp="${stamp}">`,
    '    <properties>',
    `      <property name="receiver" value="${xmlText(card.receiver.url)}"/>`,
    `      <property name="protocol" value="${era}"/>`,
    `      <property name="outcome" value="${run.outcome}"/>`,
    '    </properties>',
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** The JSON output's format name and version: a change that breaks a reader raises the version. */
export const CHECK_JSON_FORMAT = 'taskscope-check';
export const CHECK_JSON_VERSION = 2;

/** One judged rule as the JSON reports write it (version 2), for either side: docs/cli.md gives the shape. */
export function ruleEntryJson<S extends string>(
  {
    rule,
    failing,
    baseline,
  }: JudgedRule<Judged & { reason: string; observations: number; firstOffence?: Offence }>,
  described: {
    side: 'receiver' | 'client';
    title: string;
    strength: Strength | null;
    source: S;
    spec: string | null;
  },
) {
  return {
    id: rule.id,
    side: described.side,
    title: described.title,
    strength: described.strength,
    verdict: rule.verdict,
    failing,
    baseline: baseline ?? null,
    observations: rule.observations,
    reason: rule.reason,
    firstOffence: rule.firstOffence ?? null,
    source: described.source,
    spec: described.spec,
  };
}

export function checkJson(
  card: ReportCard | undefined,
  run: CheckRun,
  facts: RunFacts & { url: string },
): string {
  const era = card ? eraOf(card) : undefined;
  const value = {
    format: CHECK_JSON_FORMAT,
    version: CHECK_JSON_VERSION,
    taskscope: facts.version,
    generatedAt: new Date(card?.generatedAt ?? Date.now()).toISOString(),
    receiver: card?.receiver ?? { url: facts.url },
    outcome: run.outcome,
    exitCode: run.exitCode,
    reason: run.reason,
    failOn: facts.failOn,
    tool: facts.tool ?? null,
    counts: card?.counts ?? null,
    rules: run.rules.map((judged) => {
      const def = RULE_BY_ID.get(judged.rule.id);
      return ruleEntryJson(judged, {
        side: 'receiver',
        title: def?.title ?? judged.rule.id,
        strength: def && era ? strengthFor(def, era) : null,
        source: judged.rule.source,
        spec: (era && def?.spec[era]) ?? null,
      });
    }),
    // The client sessions judged: none for `check`, which is the only client it sees.
    clients: [],
    activeCheck: card?.active
      ? {
          startedAt: card.active.startedAt ? new Date(card.active.startedAt).toISOString() : null,
          endedAt: card.active.endedAt ? new Date(card.active.endedAt).toISOString() : null,
          stopped: card.active.stopped ?? false,
          steps: card.active.steps.map((s) => ({
            id: s.id,
            title: s.title,
            state: s.state,
            note: s.note ?? null,
          })),
        }
      : null,
  };
  return `${JSON.stringify(value, null, 2)}\n`;
}
