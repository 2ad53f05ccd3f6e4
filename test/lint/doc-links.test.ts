import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toString } from 'mdast-util-to-string';
import type { Nodes } from 'mdast';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/stdio';

/**
 * Every relative link in README.md and docs/**\/*.md reaches a file that exists, and every `#anchor` names a
 * heading of its target as GitHub slugs it. Parsed with mdast-util-from-markdown (the parser react-markdown
 * uses), so links in code are not links and reference-style links count.
 */

/** GitHub's heading ids: lowercase, punctuation removed, each space a '-', a repeat numbered `-1`, `-2`… */
function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  walk(fromMarkdown(markdown), (node) => {
    if (node.type !== 'heading') return;
    const base = toString(node)
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const repeats = seen.get(base) ?? 0;
    seen.set(base, repeats + 1);
    slugs.add(repeats === 0 ? base : `${base}-${repeats}`);
  });
  return slugs;
}

function walk(node: Nodes, visit: (node: Nodes) => void): void {
  visit(node);
  if ('children' in node) for (const child of node.children) walk(child, visit);
}

/** The link targets a Markdown file holds: inline links, images and reference definitions. */
function linkTargets(markdown: string): string[] {
  const urls: string[] = [];
  walk(fromMarkdown(markdown), (node) => {
    if (node.type === 'link' || node.type === 'image' || node.type === 'definition') urls.push(node.url);
  });
  return urls;
}

/** What is wrong with each relative link of `files` (paths under `root`), one sentence each. */
function brokenLinks(root: string, files: string[]): string[] {
  const problems: string[] = [];
  const slugsOf = new Map<string, Set<string>>();
  const slugs = (file: string) => {
    if (!slugsOf.has(file)) slugsOf.set(file, headingSlugs(readFileSync(file, 'utf8')));
    return slugsOf.get(file)!;
  };
  for (const file of files) {
    const from = path.join(root, file);
    for (const url of linkTargets(readFileSync(from, 'utf8'))) {
      // Another scheme (https:, mailto:) or another host: not this repository's to check.
      if (/^[a-z][a-z\d+.-]*:/i.test(url) || url.startsWith('//')) continue;
      const hash = url.indexOf('#');
      const target = decodeURIComponent(hash === -1 ? url : url.slice(0, hash)).replace(/\?.*$/, '');
      const anchor = hash === -1 ? '' : decodeURIComponent(url.slice(hash + 1));
      const to = target === '' ? from : path.join(target.startsWith('/') ? root : path.dirname(from), target);
      if (!existsSync(to)) problems.push(`${file}: ${url} — no such file ${path.relative(root, to)}`);
      else if (anchor && to.endsWith('.md') && !slugs(to).has(anchor))
        problems.push(`${file}: ${url} — no heading #${anchor} in ${path.relative(root, to)}`);
    }
  }
  return problems;
}

/** README.md and every Markdown file under docs/, relative to `root`. */
function documents(root: string): string[] {
  const docs = readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name));
  return ['README.md', ...docs.sort()];
}

describe('links in README.md and docs/', () => {
  it('reach files that exist and headings that exist', () => {
    const files = documents(repoRoot);
    expect(files.length).toBeGreaterThan(1);
    expect(brokenLinks(repoRoot, files)).toEqual([]);
  });

  it('are found broken: a missing file, a missing heading, and a repeated heading slugged with -1', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'doc-links-'));
    try {
      writeFileSync(
        path.join(root, 'a.md'),
        [
          '# Run it: `npm start`',
          '## Notes',
          '## Notes',
          '[ok](b.md#the-page--its-worker) [ok](#run-it-npm-start) [ok](#notes-1) [web](https://x.example/#y)',
          '[gone](missing.md) [bad](b.md#nowhere) [bad](#notes-2) `[code](missing.md)`',
          '[ref]: ./missing-too.md',
        ].join('\n\n'),
      );
      writeFileSync(path.join(root, 'b.md'), '# The page & its Worker\n');
      expect(brokenLinks(root, ['a.md'])).toEqual([
        'a.md: missing.md — no such file missing.md',
        'a.md: b.md#nowhere — no heading #nowhere in b.md',
        'a.md: #notes-2 — no heading #notes-2 in a.md',
        'a.md: ./missing-too.md — no such file missing-too.md',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
