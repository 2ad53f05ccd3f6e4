/**
 * What `taskscope proxy` reports on the clients it saw: each client session judged on its own by the client
 * rules, one outcome for the run (--fail-on, --baseline as `check` reads them), and the run as JUnit, JSON
 * (`taskscope-check` version 2, as docs/cli.md gives it) and Markdown.
 */
import { CLIENT_RULE_BY_ID, clientStrength } from '../../rules/client-catalogue';
import type { SeenMessage } from '../../rules/client-evidence';
import { judgeClient, type ClientCard, type ClientRuleResult } from '../../rules/client-judge';
import { splitClientSessions, UNNAMED_CLIENT, type ObservedClient } from '../../rules/client-sessions';
import { countsLine, markdownCell, offenceText, VERDICT_ORDER } from '../../rules/report-markdown';
import {
  CHECK_JSON_FORMAT,
  CHECK_JSON_VERSION,
  junitRuleCase,
  ruleEntryJson,
  xmlText,
} from '../check/outputs';
import { EXIT, judgeRules, type CheckRun, type JudgedRule, type RunOptions } from '../check/outcome';

/** Client sessions a report judges apart; past it they are judged together as the unnamed client. */
const MAX_JUDGED_SESSIONS = 10_000;

export interface ClientReport {
  client: Omit<ObservedClient, 'messages'>;
  card: ClientCard;
  run: CheckRun<ClientRuleResult>;
}

export interface ProxyRun {
  outcome: 'pass' | 'fail';
  exitCode: number;
  reason: string;
  clients: ClientReport[];
}

export interface ProxyFacts {
  upstream: string;
  version: string;
  failOn: 'fail' | 'warn';
  generatedAt: number;
  /** Exchanges (HTTP) or messages (stdio) the copy's caps let go before the report: judged without them. */
  dropped?: number;
}

/** How a person tells a client apart: its name and version, else its session, else "unnamed client". */
export function clientLabel(client: Omit<ObservedClient, 'messages'>): string {
  if (client.name !== undefined) return [client.name, client.version].filter(Boolean).join(' ');
  if (client.sessionId !== undefined) return `session ${client.sessionId.slice(0, 40)}`;
  return UNNAMED_CLIENT;
}

/** Every client session in what passed, judged; the run fails when any client's does. */
export function judgeProxy(
  messages: readonly SeenMessage[],
  options: Omit<RunOptions, 'incomplete'>,
): ProxyRun {
  // Every session judged on its own (the page's list keeps fewer): two clients' ids must never meet.
  const clients = splitClientSessions(messages, MAX_JUDGED_SESSIONS).map(
    ({ messages: own, ...client }): ClientReport => {
      const card = judgeClient(own);
      return { client, card, run: judgeRules(card.rules, options) };
    },
  );
  const failed = clients.filter((c) => c.run.outcome === 'fail');
  if (failed.length > 0)
    return {
      outcome: 'fail',
      exitCode: EXIT.fail,
      reason: failed.map((c) => `${clientLabel(c.client)}: ${c.run.reason}`).join('; '),
      clients,
    };
  // A CI client that went past the proxy (a wrong URL) must not pass green: no client judged is a fail.
  if (clients.length === 0)
    return {
      outcome: 'fail',
      exitCode: EXIT.fail,
      reason: 'no client was seen: point the client at the client endpoint',
      clients,
    };
  return { outcome: 'pass', exitCode: EXIT.pass, reason: 'every client rule judged passes', clients };
}

const sourceOf = (id: ClientRuleResult['id'], era: ClientCard['era']) =>
  CLIENT_RULE_BY_ID.get(id)?.source[era] ?? null;

function ruleJson(judged: JudgedRule<ClientRuleResult>, card: ClientCard) {
  const def = CLIENT_RULE_BY_ID.get(judged.rule.id);
  return ruleEntryJson(judged, {
    side: 'client',
    title: def?.title ?? judged.rule.id,
    strength: def ? clientStrength(def, card.era, card.documentsFlavour) : null,
    source: 'passive',
    spec: sourceOf(judged.rule.id, card.era),
  });
}

export function proxyJson(run: ProxyRun, facts: ProxyFacts): string {
  const value = {
    format: CHECK_JSON_FORMAT,
    version: CHECK_JSON_VERSION,
    taskscope: facts.version,
    generatedAt: new Date(facts.generatedAt).toISOString(),
    receiver: { url: facts.upstream },
    // What the copy's caps let go before the report: the clients were judged on the rest.
    dropped: facts.dropped ?? 0,
    outcome: run.outcome,
    exitCode: run.exitCode,
    reason: run.reason,
    failOn: facts.failOn,
    tool: null,
    counts: null,
    rules: [],
    clients: run.clients.map(({ client, card, run: own }) => ({
      name: client.name ?? null,
      version: client.version ?? null,
      sessionId: client.sessionId ?? null,
      era: card.era,
      documentsFlavour: card.documentsFlavour,
      outcome: own.outcome,
      reason: own.reason,
      counts: card.counts,
      rules: own.rules.map((judged) => ruleJson(judged, card)),
    })),
    activeCheck: null,
  };
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** JUnit XML: one testsuite per client session, one testcase per client rule. */
export function proxyJunit(run: ProxyRun, facts: ProxyFacts): string {
  const stamp = new Date(facts.generatedAt).toISOString().replace(/\.\d+Z$/, '');
  const totals = { tests: 0, failures: 0, skipped: 0 };
  const suites: string[] = [];
  for (const { client, card, run: own } of run.clients) {
    const cases: string[] = [];
    let failures = 0;
    let skipped = 0;
    for (const judged of own.rules) {
      const { rule } = judged;
      const detail = ruleJson(judged, card);
      const text = [
        `verdict: ${rule.verdict} (${detail.strength ?? ''}, ${rule.observations} observation${rule.observations === 1 ? '' : 's'})`,
        `reason: ${rule.reason}`,
        ...(rule.firstOffence ? [`evidence: ${offenceText(rule.firstOffence)}`] : []),
        ...(detail.spec ? [`source: ${detail.spec}`] : []),
      ].join('\n');
      const one = junitRuleCase(`taskscope.client.${card.era}`, `${rule.id}: ${detail.title}`, judged, text);
      if (one.failed) failures++;
      if (one.skipped) skipped++;
      cases.push(...one.lines);
    }
    const tests = own.rules.length;
    totals.tests += tests;
    totals.failures += failures;
    totals.skipped += skipped;
    suites.push(
      `  <testsuite name="${xmlText(`taskscope proxy: ${clientLabel(client)}`)}" tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}" time="0" timestamp="${stamp}">`,
      '    <properties>',
      `      <property name="client" value="${xmlText(clientLabel(client))}"/>`,
      `      <property name="upstream" value="${xmlText(facts.upstream)}"/>`,
      `      <property name="protocol" value="${card.era}"/>`,
      `      <property name="dropped" value="${facts.dropped ?? 0}"/>`,
      '    </properties>',
      ...cases,
      '  </testsuite>',
    );
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="taskscope proxy" tests="${totals.tests}" failures="${totals.failures}" errors="0" skipped="${totals.skipped}" time="0">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

/** Markdown for an issue tracker: a section per client, its rules fails first. */
export function proxyMarkdown(run: ProxyRun, facts: ProxyFacts): string {
  const lines = [
    '## Taskscope client report card',
    '',
    `Upstream ${markdownCell(facts.upstream)}, ${new Date(facts.generatedAt).toISOString()}: **${run.outcome}** (${markdownCell(run.reason)}).`,
  ];
  if ((facts.dropped ?? 0) > 0)
    lines.push(
      '',
      `The copy's caps let ${facts.dropped} earlier exchanges or messages go: the clients are judged on the rest.`,
    );
  if (run.clients.length === 0) lines.push('', 'No client was seen.');
  for (const { client, card, run: own } of run.clients) {
    lines.push('', `### ${markdownCell(clientLabel(client))} (${card.era})`, '', countsLine(card.counts), '');
    lines.push('| rule | verdict | strength | reason | first offence |', '| --- | --- | --- | --- | --- |');
    const sorted = [...own.rules].sort(
      (a, b) => VERDICT_ORDER.indexOf(a.rule.verdict) - VERDICT_ORDER.indexOf(b.rule.verdict),
    );
    for (const judged of sorted) {
      const detail = ruleJson(judged, card);
      lines.push(
        `| ${markdownCell(detail.title)} (\`${judged.rule.id}\`) | ${judged.rule.verdict} | ${detail.strength ?? ''} | ${markdownCell(judged.rule.reason)} | ${markdownCell(offenceText(judged.rule.firstOffence))} |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
