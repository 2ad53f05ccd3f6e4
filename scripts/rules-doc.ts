/**
 * Writes docs/rules.md from the rule catalogues (npm run rules:doc). A unit test fails while the committed file
 * differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import { RULES_DOC_PATH, rulesMarkdown } from '../src/rules/rules-doc';

const file = new URL(`../${RULES_DOC_PATH}`, import.meta.url);
const options = (await resolveConfig(file)) ?? {};
writeFileSync(file, await format(rulesMarkdown(), { ...options, parser: 'markdown' }));
console.log(`wrote ${RULES_DOC_PATH}`);
