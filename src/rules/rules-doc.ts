/**
 * docs/rules.md, written from the catalogues the code judges by (npm run rules:doc); a unit test fails while the
 * committed file differs, so the page, the command line and the document never disagree on a rule.
 */
import type { Era } from '../mcp';
import { RULES, strengthFor } from './catalogue';
import { CLIENT_RULES, clientStrength } from './client-catalogue';
import type { Strength } from './report-types';

export const RULES_DOC_PATH = 'docs/rules.md';

const ERAS: readonly Era[] = ['2025-11-25', '2026-07-28'];
const VERDICT: Record<Strength, string> = { MUST: 'fail', SHOULD: 'warn', MAY: 'info' };
const broken = (strength: Strength) => `${strength} (broken: ${VERDICT[strength]})`;

function sourceLine(era: Era, source: string | undefined, quote: string | undefined): string | undefined {
  if (source === undefined) return undefined;
  const where = /^https?:\/\//.test(source) ? `[spec](${source})` : source;
  return `- ${era}: ${where}${quote ? ` — “${quote}”` : ''}`;
}

function receiverRules(): string[] {
  const out: string[] = [];
  for (const def of RULES) {
    const strengths = ERAS.filter((era) => def.spec[era] !== undefined).map(
      (era) => `${era} ${broken(strengthFor(def, era))}`,
    );
    out.push(`### \`${def.id}\``, '', `${def.title}.`, '');
    out.push(
      `- side: receiver; judged ${def.judgedBy === 'both' ? 'passively and by the check' : def.judgedBy === 'active' ? 'by the check only' : 'passively'}`,
    );
    out.push(`- strength: ${strengths.join('; ')}`);
    for (const era of ERAS) {
      const line = sourceLine(era, def.spec[era], def.quote?.[era]);
      if (line) out.push(line);
    }
    out.push('');
  }
  return out;
}

function clientRules(): string[] {
  const out: string[] = [];
  for (const def of CLIENT_RULES) {
    const strengths = ERAS.filter((era) => def.source[era] !== undefined).map(
      (era) => `${era} ${broken(clientStrength(def, era, false))}`,
    );
    const documents = def.strengthOn?.documents;
    out.push(`### \`${def.id}\``, '', `${def.title}.`, '');
    out.push('- side: client; judged from the messages that passed');
    out.push(
      `- strength: ${strengths.join('; ')}${documents ? `; on a receiver that follows the user documents ${broken(documents)}` : ''}`,
    );
    for (const era of ERAS) {
      const line = sourceLine(era, def.source[era], def.quote[era]);
      if (line) out.push(line);
    }
    out.push('');
  }
  return out;
}

/** The whole document, before Prettier lays it out. */
export function rulesMarkdown(): string {
  return [
    '# Rules',
    '',
    '<!-- Written by npm run rules:doc from src/rules/catalogue.ts and src/rules/client-catalogue.ts; do not edit. -->',
    '',
    'Every rule Taskscope judges, on both sides of a task: the **receiver** (the server running tasks: the report',
    'card, `taskscope check`) and the **client** (what a client does with tasks, seen through `taskscope proxy`).',
    'Each rule keeps the strength its text gives it, and the verdict follows from it: a MUST broken fails, a',
    'SHOULD broken warns, a MAY is information and never fails. A rule nothing could be judged on yet is',
    '"unobserved". A rule with no text in a protocol generation does not apply to it and is left off that',
    "generation's card. Where the user documents and the specification differ, a rule follows what the receiver",
    'it talks to does.',
    '',
    '## Receiver rules',
    '',
    ...receiverRules(),
    '## Client rules',
    '',
    ...clientRules(),
  ].join('\n');
}
