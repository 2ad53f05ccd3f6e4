import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { allowedHostsFromEnv } from '../../devserver/guard.js';
import { portFromEnv } from '../../devserver/http-server.js';
import { startApp, type StartedApp } from '../../devserver/start.js';
import { packageVersion } from '../../devserver/package-root.js';
import { ConfigError, readServersConfig, type ConfiguredServers } from '../../devserver/stdio/config.js';
import { commandLine } from '../../devserver/stdio/connection.js';
import { USAGE, UsageError, parseStartArgs, type StartArgs } from '../start/args.js';
import { openBrowser } from '../start/open-browser.js';
import { extraHosts, nextFreePort } from '../start/network.js';
import { untilStopped } from '../start/stop-signal.js';

/** Exit codes: 0 stopped by Ctrl-C or done; 1 could not start (port in use, no build); 2 a mistake in the command. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/**
 * `taskscope` with no subcommand: the page, the demo receivers, the relay and any stdio servers named, on
 * loopback, until Ctrl-C. `npm start` runs the same (with --no-open).
 */
export async function run(argv: string[]): Promise<number> {
  let args: StartArgs;
  let servers: ConfiguredServers = { stdio: [], http: [] };
  try {
    args = parseStartArgs(argv);
    if (args.help) {
      console.log(USAGE);
      return EXIT.ok;
    }
    if (args.version) {
      console.log(packageVersion());
      return EXIT.ok;
    }
    if (args.config !== undefined) servers = await readConfig(args.config);
    if (args.allowRemote && servers.stdio.length > 0)
      throw new UsageError(
        `--allow-remote refuses the stdio servers in ${args.config}: run them on loopback only`,
      );
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof ConfigError)) throw error;
    console.error(`taskscope: ${error.message}`);
    if (error instanceof UsageError) console.error('Try taskscope --help.');
    return EXIT.usage;
  }

  const stdio = [...(args.stdio ? [args.stdio] : []), ...servers.stdio];
  const names = new Set<string>();
  for (const { name } of stdio) {
    if (names.has(name)) {
      console.error(`taskscope: two stdio servers are named ${name}: name one with --stdio name=NAME`);
      return EXIT.usage;
    }
    names.add(name);
  }
  const home = args.receiverUrl ?? (stdio[0] ? `/stdio/${stdio[0].name}/mcp` : servers.http[0]?.url);
  let port: number;
  try {
    port = args.port ?? portFromEnv('PORT', 5173);
  } catch (error) {
    console.error(`taskscope: ${(error as Error).message}`);
    return EXIT.usage;
  }

  let started: StartedApp;
  try {
    started = await startApp({
      port,
      host: args.host,
      dev: args.dev,
      allowedHosts: [...allowedHostsFromEnv(), ...(args.allowRemote ? extraHosts(args.host) : [])],
      handOutToken: !args.allowRemote,
      stdio: { receivers: stdio },
      home,
      // Lets parallel e2e runs each serve their own build (test/e2e/run.mjs).
      ...(process.env.TASKSCOPE_DIST ? { staticDir: path.resolve(process.env.TASKSCOPE_DIST) } : {}),
    });
  } catch (error) {
    console.error(await startFailure(error, port, args.host));
    return EXIT.failed;
  }

  const root = `${started.url}/`;
  const pageUrl = home === undefined ? root : `${root}?server=${encodeURIComponent(home)}`;
  console.log(`Taskscope ${packageVersion()}${args.dev ? ' (dev)' : ''} on ${root}`);
  console.log(`  opens on      ${home ?? `${started.url}/demo/mcp (the demo receiver)`}`);
  for (const receiver of stdio)
    console.log(
      `  stdio         ${started.url}/stdio/${receiver.name}/mcp  ← ${commandLine(receiver.command)}`,
    );
  for (const entry of servers.http) {
    console.log(`  ${entry.name.padEnd(13)} ${root}?server=${encodeURIComponent(entry.url)}`);
    if (Object.keys(entry.headers).length > 0)
      console.log(
        `                (its headers are not handed to the page: enter them in the page's key menu)`,
      );
  }
  console.log(
    `  demo          ${started.url}/demo/mcp (2025-11-25), ${started.url}/demo/mcp-2026 (2026-07-28)`,
  );
  if (args.allowRemote) {
    console.log(`  reachable from other machines: the page asks once for this token`);
    console.log(`  token         ${started.relayToken}`);
  }
  console.log('Ctrl-C stops it.');
  if (args.open) openBrowser(pageUrl);

  return untilStopped(
    async () => {
      const servers = started.stdio?.connections().filter((c) => c.alive) ?? [];
      if (servers.length > 0)
        console.log(
          `Stopping ${servers.length} stdio server${servers.length === 1 ? '' : 's'} (stdin, SIGTERM, then SIGKILL)…`,
        );
      await started.close();
      for (const conn of servers)
        console.log(
          `  ${conn.receiver.name} (pid ${conn.child?.pid ?? '?'}) ${conn.child?.describeEnd() ?? 'stopped'}`,
        );
      return EXIT.ok;
    },
    { again: () => console.log('Still stopping: waiting for the stdio servers to exit…') },
  );
}

/** Why the server did not start, as a sentence with what to do (a free port when the one asked for is taken). */
export async function startFailure(
  error: unknown,
  port: number,
  host: string,
  command = 'taskscope',
): Promise<string> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    const free = await nextFreePort(port + 1, host);
    return `taskscope: port ${port} is in use (another Taskscope, or another program).${free ? ` Port ${free} is free: ${command} --port ${free}` : ' Pick another with --port N.'}`;
  }
  if (code === 'EADDRNOTAVAIL' || code === 'EACCES')
    return `taskscope: cannot listen on ${host}:${port} (${code}). Pick another --host or --port.`;
  return `taskscope: ${(error as Error).message}`;
}

async function readConfig(file: string): Promise<ConfiguredServers> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `--config ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
  return readServersConfig(text, file);
}
