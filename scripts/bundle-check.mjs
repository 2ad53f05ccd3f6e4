// The page bundle's gate, on the build the e2e phase makes: no page chunk (every script but the engine Worker's)
// may hold zod, ajv or Node-only code, and the entry chunk with what it preloads stays within the budget. Run
// alone as `node scripts/bundle-check.mjs [dist]`; test/e2e/run.mjs runs it after its build.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

/** The entry chunk and what index.html preloads with it, gzipped, at most. */
export const ENTRY_BUDGET_GZIP = 200 * 1024;

/** What a library leaves in minified code whatever its names are minified to. */
const FORBIDDEN = [
  // zod 4 keeps each schema's internals under `_zod`.
  { what: 'zod', pattern: /\._zod\b/ },
  { what: 'ajv', pattern: /strictTuples|must have required property/ },
  { what: 'Node-only code', pattern: /__vite-browser-external|["']node:[a-z_/]+["']/ },
];

const isWorker = (name) => /^engine\.worker-/.test(name);

/** The findings for a built page in `dist`: problems (empty when it passes) and the entry's gzipped size. */
export function checkBundle(dist) {
  const assets = path.join(dist, 'assets');
  const problems = [];
  for (const name of readdirSync(assets).sort()) {
    if (!name.endsWith('.js') || isWorker(name)) continue;
    const code = readFileSync(path.join(assets, name), 'utf8');
    for (const { what, pattern } of FORBIDDEN)
      if (pattern.test(code)) problems.push(`${name} holds ${what}: the page must not load it`);
  }
  const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
  const loaded = [
    ...html.matchAll(/<script[^>]*\ssrc="([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g),
  ].map((m) => m[1]);
  let entryGzip = 0;
  for (const src of new Set(loaded))
    entryGzip += gzipSync(readFileSync(path.join(dist, src.replace(/^\//, '')))).length;
  if (entryGzip > ENTRY_BUDGET_GZIP)
    problems.push(
      `the entry chunk with its preloads is ${kb(entryGzip)} gzip, over the budget of ${kb(ENTRY_BUDGET_GZIP)}`,
    );
  return { problems, entryGzip, scripts: loaded.length };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dist = process.argv[2] ?? 'dist';
  const { problems, entryGzip, scripts } = checkBundle(dist);
  console.log(
    `page bundle: entry ${kb(entryGzip)} gzip in ${scripts} script(s) (budget ${kb(ENTRY_BUDGET_GZIP)}); no zod, ajv or Node-only code in page chunks${problems.length ? ': FAILED' : ''}`,
  );
  for (const problem of problems) console.error(`  ${problem}`);
  if (problems.length > 0) process.exit(1);
}
