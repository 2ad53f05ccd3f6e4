import type { Era } from '../mcp';
import { oneLine } from '../format/control-chars';
import { RULE_BY_ID, strengthFor } from './catalogue';
import type { Offence, ReportCard, RuleResult, Verdict } from './report-types';

/** A cell longer than this is cut: a table row must stay a row an issue tracker can show. */
const MAX_CELL = 400;

export const VERDICT_ORDER: readonly Verdict[] = ['fail', 'warn', 'info', 'pass', 'unobserved'];

/**
 * Text for one Markdown table cell. Reasons and offences carry receiver data (ids, excerpts of answers):
 * a pipe or a line break would end the cell or the row, and markup (links, emphasis, HTML) would be drawn
 * by the tracker the card is pasted into. So breaks become spaces and markup characters are escaped.
 */
export function markdownCell(text: string): string {
  const flat = oneLine(text).trim();
  const cut = flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL)}…` : flat;
  return cut.replace(/[\\`*_[\]<>|#!~]/g, (c) => `\\${c}`);
}

/** An http(s) link as Markdown, or nothing: the spec links are ours, but a card read back could carry anything. */
export function markdownLink(label: string, href: string | undefined): string {
  if (!href) return '';
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return '';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return '';
  // Parentheses and spaces inside the address would end the link early.
  const safe = url.href.replace(/[()\s]/g, (c) => encodeURIComponent(c));
  return `[${markdownCell(label)}](${safe})`;
}

export function offenceText(offence: Offence | undefined): string {
  if (!offence) return '';
  const where = [
    offence.taskId !== undefined ? `task ${offence.taskId}` : undefined,
    offence.trafficSeq !== undefined ? `message #${offence.trafficSeq}` : undefined,
    offence.at !== undefined ? new Date(offence.at).toISOString() : undefined,
  ].filter(Boolean);
  return where.length > 0 ? `${where.join(', ')}: ${offence.detail}` : offence.detail;
}

/** Fails first, then warnings, information, passes, unobserved; catalogue order within each. */
export function byVerdict(rules: readonly RuleResult[]): RuleResult[] {
  return [...rules].sort((a, b) => VERDICT_ORDER.indexOf(a.verdict) - VERDICT_ORDER.indexOf(b.verdict));
}

export function countsLine(counts: Record<Verdict, number>): string {
  return VERDICT_ORDER.map((v) => `${counts[v] ?? 0} ${v}`).join(' · ');
}

function ruleRow(rule: RuleResult, era: Era): string {
  const def = RULE_BY_ID.get(rule.id);
  const title = def?.title ?? rule.id;
  const strength = def ? strengthFor(def, era) : '';
  const spec = markdownLink(era, def?.spec[era]);
  const cells = [
    markdownCell(title),
    rule.verdict,
    strength,
    String(rule.observations),
    markdownCell(rule.reason),
    markdownCell(offenceText(rule.firstOffence)),
    rule.source,
    spec,
  ];
  return `| ${cells.join(' | ')} |`;
}

/** The card for an issue tracker: the receiver, when, the counts, a table of rules, the active check's steps. */
export function reportMarkdown(card: ReportCard): string {
  const era: Era = card.receiver.era ?? '2025-11-25';
  const name = [card.receiver.name, card.receiver.version].filter(Boolean).join(' ');
  const lines = [
    `## Taskscope report card${name ? `: ${markdownCell(name)}` : ''}`,
    '',
    `- Receiver: ${markdownCell(card.receiver.url)}`,
    `- Protocol: ${era}`,
    `- Generated: ${new Date(card.generatedAt).toISOString()}`,
    `- Verdicts: ${countsLine(card.counts)}`,
  ];
  const active = card.active;
  if (active?.startedAt !== undefined) {
    const done = active.steps.filter((s) => s.state === 'done').length;
    const how = active.running ? 'running' : active.stopped ? 'stopped' : 'finished';
    lines.push(
      `- Active check: ${how}, started ${new Date(active.startedAt).toISOString()}, ${done} of ${active.steps.length} steps done`,
    );
  } else lines.push('- Active check: not run (passive observations only)');
  lines.push(
    '',
    '| Rule | Verdict | Strength | Observations | Reason | First offence | Source | Spec |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...byVerdict(card.rules).map((rule) => ruleRow(rule, era)),
  );
  if (active && active.steps.length > 0) {
    lines.push('', '### Active check', '');
    for (const step of active.steps)
      lines.push(
        `- ${markdownCell(step.title)}: ${step.state}${step.note ? ` (${markdownCell(step.note)})` : ''}`,
      );
  }
  return `${lines.join('\n')}\n`;
}
