import { readFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import { describe, expect, it } from 'vitest';
import { RULES } from './catalogue';
import { CLIENT_RULES } from './client-catalogue';
import { RULES_DOC_PATH, rulesMarkdown } from './rules-doc';

describe('docs/rules.md', () => {
  it('is what npm run rules:doc writes from the catalogues, and names every rule of both sides', async () => {
    const file = new URL(`../../${RULES_DOC_PATH}`, import.meta.url);
    const committed = readFileSync(file, 'utf8');
    const options = (await resolveConfig(file)) ?? {};
    expect(committed, 'out of date: run npm run rules:doc').toBe(
      await format(rulesMarkdown(), { ...options, parser: 'markdown' }),
    );
    for (const { id } of [...RULES, ...CLIENT_RULES]) expect(committed).toContain(`### \`${id}\``);
  });
});
