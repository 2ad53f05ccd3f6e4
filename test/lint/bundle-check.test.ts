import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types; its one function is called as documented there.
import { checkBundle, ENTRY_BUDGET_GZIP } from '../../scripts/bundle-check.mjs';

/** The gate the e2e phase runs on its build (scripts/bundle-check.mjs), on small made-up builds. */
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function build(files: Record<string, string>, html: string): Promise<string> {
  const dist = await mkdtemp(path.join(tmpdir(), 'taskscope-bundle-'));
  dirs.push(dist);
  await mkdir(path.join(dist, 'assets'));
  await writeFile(path.join(dist, 'index.html'), html);
  for (const [name, code] of Object.entries(files)) await writeFile(path.join(dist, 'assets', name), code);
  return dist;
}

const page = '<script type="module" crossorigin src="/assets/index-a.js"></script>';

describe('the page bundle gate', () => {
  it('passes a page without zod, ajv or Node code; the Worker may hold zod', async () => {
    const dist = await build({ 'index-a.js': 'console.log(1)', 'engine.worker-b.js': 'a._zod.def' }, page);
    const result = checkBundle(dist) as { problems: string[]; entryGzip: number };
    expect(result.problems).toEqual([]);
    expect(result.entryGzip).toBeGreaterThan(0);
  });

  it('fails a page chunk that holds zod, ajv or a Node built-in, and an entry over its budget', async () => {
    const big = Array.from({ length: 120_000 }, (_, i) => `v${(i * 7919) % 100_003}`).join(';');
    const dist = await build(
      {
        'index-a.js': `x._zod.parse(y);${big}`,
        'lazy-c.js': 'strictTuples; import("node:fs")',
      },
      `${page}<link rel="modulepreload" crossorigin href="/assets/lazy-c.js">`,
    );
    const { problems } = checkBundle(dist) as { problems: string[] };
    expect(problems).toEqual([
      'index-a.js holds zod: the page must not load it',
      'lazy-c.js holds ajv: the page must not load it',
      'lazy-c.js holds Node-only code: the page must not load it',
      expect.stringMatching(new RegExp(`over the budget of ${(ENTRY_BUDGET_GZIP / 1024).toFixed(1)} KB`)),
    ]);
  });
});
