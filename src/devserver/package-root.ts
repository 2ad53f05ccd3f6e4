import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding Taskscope's package.json: two levels up from src/devserver when run from the repository,
 * one from the compiled server in the package. Found by looking, so both layouts find dist/ beside it.
 */
export function packageRoot(from = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(from, '../..');
  }
}

/** This package's version, as `taskscope --version` says it. */
export function packageVersion(): string {
  const json = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as {
    version?: unknown;
  };
  return typeof json.version === 'string' ? json.version : 'unknown';
}
