import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StdioCommand } from '../../src/devserver/stdio/child';
import type { StdioRoute } from '../../src/mcp';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../..');
const require = createRequire(import.meta.url);

/** server-everything in its default transport, stdio. */
export const EVERYTHING_ENTRY = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

export const everythingCommand = (): StdioCommand => ({
  command: process.execPath,
  args: [EVERYTHING_ENTRY, 'stdio'],
  env: {},
});

/** One of test/fixtures/stdio/*.mjs. */
export const fixtureCommand = (name: string): StdioCommand => ({
  command: process.execPath,
  args: [path.join(repoRoot, 'test/fixtures/stdio', `${name}.mjs`)],
  env: {},
});

/** Our 2026-07-28 demo receiver over stdio (run from the sources). */
export const demo2026Command = (): StdioCommand => ({
  command: process.execPath,
  args: ['--import', 'tsx', 'src/devserver/demo-2026/stdio-main.ts'],
  env: {},
  cwd: repoRoot,
});

export const newRoute = (token: string): StdioRoute => ({
  token,
  connection: randomBytes(18).toString('base64url'),
});

/** Whether a process is still there; a zombie nobody reaped yet counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}
