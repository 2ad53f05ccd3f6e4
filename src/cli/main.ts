/**
 * `taskscope`: the one command. With no subcommand it starts the page's server (what `npm start` serves);
 * `check`, `watch` and `serve` work without a browser; `proxy` puts the page between a client and its server.
 * Each command returns its exit code; nothing here calls process.exit but this file, so every command can be
 * run and tested in-process.
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import type { HostOptions } from '../engine/host';

/** What a test may change of a command's engine; a person's run gets the defaults. */
export interface CommandOptions {
  /** The active check's waits (`taskscope check`), shortened by tests. */
  checkTiming?: HostOptions['checkTiming'];
  /** How long `taskscope check` follows the tasks it started to their end (5 s), shortened by tests. */
  checkSettleMs?: number;
}

export type Command = (argv: string[], options?: CommandOptions) => Promise<number>;

const commands: Record<string, () => Promise<Command>> = {
  check: async () => (await import('./commands/check.js')).run,
  watch: async () => (await import('./commands/watch.js')).run,
  serve: async () => (await import('./commands/serve.js')).run,
  proxy: async () => (await import('./commands/proxy.js')).run,
};

export async function main(argv: string[], options: CommandOptions = {}): Promise<number> {
  const [first, ...rest] = argv;
  const load = first !== undefined ? commands[first] : undefined;
  if (load) return (await load())(rest, options);
  return (await import('./commands/start.js')).run(argv);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const code = await main(process.argv.slice(2));
  // A command that started a server returns only once it has stopped; the rest end here.
  process.exitCode = code;
}
