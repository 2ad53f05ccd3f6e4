import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A stand-in build for servers started in-process: vitest runs before `vite build` in `npm test`. */
export async function makeStubDist(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'taskscope-dist-'));
  await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>taskscope-test-index</title>\n');
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
