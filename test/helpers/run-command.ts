import { PassThrough } from 'node:stream';
import { vi } from 'vitest';
import { main, type CommandOptions } from '../../src/cli/main';

/**
 * A person at a terminal, for a command run in process: stdin and stderr are terminals (the status line and
 * the questions are on), and after each write `onScreen` sees everything written so far, in order, on both
 * streams (escape sequences kept), and may type.
 */
export interface InProcessTerminal {
  onScreen: (screen: string, type: (text: string) => void) => void;
  /** stderr's width (the status line is cut to it). */
  columns?: number;
}

/**
 * Runs `taskscope …` in this process (as bin/taskscope.mjs does, without process.exit) and returns its exit
 * code with what it printed: one engine, no second Node and tsx to start per run. `screen` is stdout and
 * stderr as a terminal shows them, interleaved.
 */
export async function runInProcess(
  argv: string[],
  options: CommandOptions = {},
  terminal?: InProcessTerminal,
): Promise<{ code: number; stdout: string; stderr: string; screen: string }> {
  let stdout = '';
  let stderr = '';
  let screen = '';
  const keyboard = new PassThrough();
  const type = (text: string) => void setImmediate(() => keyboard.write(text));
  const wrote = (text: string) => {
    screen += text;
    terminal?.onScreen(screen, type);
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += chunk.toString();
    wrote(chunk.toString());
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    wrote(chunk.toString());
    return true;
  });
  const log = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
    stdout += `${parts.join(' ')}\n`;
    wrote(`${parts.join(' ')}\n`);
  });
  const error = vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
    stderr += `${parts.join(' ')}\n`;
    wrote(`${parts.join(' ')}\n`);
  });
  const restore: Array<() => void> = [];
  if (terminal) {
    Object.assign(keyboard, { isTTY: true });
    const stdin = vi
      .spyOn(process, 'stdin', 'get')
      .mockReturnValue(keyboard as unknown as typeof process.stdin);
    restore.push(() => stdin.mockRestore());
    for (const [key, value] of [
      ['isTTY', true],
      ['columns', terminal.columns ?? 200],
    ] as const) {
      const before = Object.getOwnPropertyDescriptor(process.stderr, key);
      Object.defineProperty(process.stderr, key, { value, configurable: true, writable: true });
      restore.push(() =>
        before
          ? Object.defineProperty(process.stderr, key, before)
          : Reflect.deleteProperty(process.stderr, key),
      );
    }
  }
  try {
    const code = await main(argv, options);
    return { code, stdout, stderr, screen };
  } finally {
    out.mockRestore();
    err.mockRestore();
    log.mockRestore();
    error.mockRestore();
    for (const undo of restore.reverse()) undo();
    keyboard.end();
  }
}
