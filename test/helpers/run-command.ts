import { vi } from 'vitest';
import { main, type CommandOptions } from '../../src/cli/main';

/**
 * Runs `taskscope …` in this process (as bin/taskscope.mjs does, without process.exit) and returns its exit
 * code with what it printed: one engine, no second Node and tsx to start per run.
 */
export async function runInProcess(
  argv: string[],
  options: CommandOptions = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += chunk.toString();
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  });
  const log = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
    stdout += `${parts.join(' ')}\n`;
  });
  const error = vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
    stderr += `${parts.join(' ')}\n`;
  });
  try {
    const code = await main(argv, options);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    log.mockRestore();
    error.mockRestore();
  }
}
