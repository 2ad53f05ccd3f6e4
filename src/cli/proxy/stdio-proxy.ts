/**
 * `taskscope proxy --stdio -- <command>`: what a host runs in place of a stdio MCP server. The server's bytes
 * pass both ways as they come, never re-serialised; stdout carries the server's stdout and nothing else, so all
 * Taskscope says goes to stderr, with the server's own stderr. Taskscope's page runs beside it, on the first
 * free port from 5199, and keeps a bounded copy of the traffic; the page cannot write to, restart or stop the
 * server (it is not offered through the stdio bridge). The proxy ends when the server does, with its exit code.
 */
import path from 'node:path';
import { constants } from 'node:os';
import { format } from 'node:util';
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { allowedHostsFromEnv } from '../../devserver/guard.js';
import type { ObservedSource } from '../../devserver/observed/source.js';
import { stdioSource } from '../../devserver/observed/stdio-source.js';
import type { StartedApp } from '../../devserver/start.js';
import { signalServer, spawnServer } from '../../devserver/stdio/child.js';
import { commandLine, type ConsoleSnapshot } from '../../devserver/stdio/connection.js';
import { ConsoleRing } from '../../devserver/stdio/console-ring.js';
import { LineReader } from '../../devserver/stdio/line-reader.js';
import { UsageError } from '../start/args.js';
import { nextFreePort } from '../start/network.js';
import { openBrowser } from '../start/open-browser.js';
import { STDIO_PROXY_USAGE, parseStdioProxyArgs, type StdioProxyArgs } from './stdio-args.js';
import { RingTap, tapReader, type TapDirection } from './stdio-tap.js';
import { secretParts } from '../../devserver/proxy/tap-redact.js';
import { readBaseline, wantsReport, writeProxyReports } from './write-report.js';
import { packageVersion } from '../../devserver/package-root.js';
import type { Baseline } from '../check/outcome.js';

/** Exit codes of the proxy's own: a mistake in the command; a server that could not be started at all. */
const EXIT = { usage: 2, notStarted: 1, notFound: 127, notExecutable: 126 } as const;

/** The signals a host (or a terminal) sends that reach the server instead of ending the proxy. */
const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Ports tried for the page from the first one given. */
const PORT_TRIES = 20;

export async function runStdioProxy(argv: string[]): Promise<number> {
  const say = (line: string) => void process.stderr.write(`taskscope proxy: ${line}\n`);
  let args: StdioProxyArgs;
  let baseline: Baseline | undefined;
  try {
    const parsed = parseStdioProxyArgs(argv);
    if (parsed.help) {
      process.stderr.write(`${STDIO_PROXY_USAGE}\n`);
      return 0;
    }
    args = parsed;
    baseline = await readBaseline(args.report);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    say(error.message);
    process.stderr.write('Try taskscope proxy --stdio --help.\n');
    return EXIT.usage;
  }
  const restoreConsole = consoleToStderr();
  try {
    return await proxy(args, baseline, say);
  } finally {
    restoreConsole();
  }
}

/** How long after the host's stdin ends, or a signal comes, the report files are written if the server has not exited by then. */
const REPORT_AFTER_STDIN_MS = 1000;

async function proxy(
  args: StdioProxyArgs,
  baseline: Baseline | undefined,
  say: (line: string) => void,
): Promise<number> {
  const { stdin, stdout, stderr } = process;
  // What the page will show: the server's stderr and the proxy's notes, and the messages both ways.
  const consoleRing = new ConsoleRing();
  const tap = new RingTap();
  // The tap's messages as the page and the report read them.
  // The server's state for the page's console panel: running with its pid, then how it ended.
  let state: ConsoleSnapshot['state'] = { phase: 'starting' };
  let summary: string | undefined;
  const observed = stdioSource(tap, args.name, (after) => ({
    name: args.name,
    command: commandLine(args.command),
    state,
    ...(summary !== undefined ? { summary } : {}),
    nonMcpLines: 0,
    lines: consoleRing.after(after),
    dropped: consoleRing.dropped,
    lastSeq: consoleRing.lastSeq,
  }));

  let child: ChildProcess;
  try {
    // In place of the server's own command: the environment the host gave it is the server's (its `env` entries
    // are set on this process), with --env over it.
    child = spawnServer(args.command, process.env);
  } catch (error) {
    say(`could not start ${commandLine(args.command)}: ${(error as Error).message}`);
    return EXIT.notStarted;
  }
  if (child.pid !== undefined) state = { phase: 'running', pid: child.pid, startedAt: Date.now() };
  const ended = new Promise<number>((resolve) => {
    child.on('error', (error: NodeJS.ErrnoException) => {
      // Only a failed spawn ends it here: once it runs, 'close' says how it ended.
      if (child.pid !== undefined) return;
      state = { phase: 'exited', endedAt: Date.now(), code: null, signal: null, spawnError: error.message };
      say(
        error.code === 'ENOENT'
          ? `command not found: ${args.command.command}`
          : `could not start ${commandLine(args.command)}: ${error.message}`,
      );
      resolve(
        error.code === 'ENOENT'
          ? EXIT.notFound
          : error.code === 'EACCES'
            ? EXIT.notExecutable
            : EXIT.notStarted,
      );
    });
    // Whatever the server left in its process group is an orphan once it has exited.
    child.once('exit', () => signalServer(child, 'SIGKILL'));
    // 'close' comes after its stdout and stderr have ended: every byte is forwarded by then.
    child.once('close', (code, signal) => {
      if (child.pid === undefined) return;
      const how = code !== null ? `exited with code ${code}` : `was ended by ${signal ?? 'a signal'}`;
      state = { phase: 'exited', pid: child.pid, endedAt: Date.now(), code, signal };
      summary = `${args.name} ${how}`;
      consoleRing.push('bridge', `The server ${how}`);
      say(`${args.name} ${how}`);
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });

  // Forwarding: the pipes alone write; the tap reads the same chunks after them, on listeners of its own.
  const notes = {
    overLong: (direction: TapDirection, bytes: number) =>
      consoleRing.push(
        'bridge',
        `A ${direction} line of ${bytes} bytes was passed on but is too long to keep.`,
      ),
    notJson: (direction: TapDirection, line: string) =>
      consoleRing.push('bridge', `The ${direction} wrote a line that is not JSON: ${line.slice(0, 200)}`),
  };
  // The values the command line gave the server's environment are secrets wherever a message repeats them.
  const secrets = Object.values(args.command.env ?? {}).flatMap((value) => secretParts(value));
  const fromServer = tapReader(tap, 'server', notes, { secrets });
  const fromClient = tapReader(tap, 'client', notes, { secrets });
  const serverStderr = new LineReader(
    64 * 1024,
    (line) => consoleRing.push('stderr', line),
    (bytes) => consoleRing.push('bridge', `A line of ${bytes} bytes on stderr was too long to keep.`),
  );
  const server = { stdout: child.stdout as Readable, stderr: child.stderr as Readable };
  const serverStdin = child.stdin as Writable;
  server.stdout.pipe(stdout, { end: false });
  server.stdout.on('data', (chunk: Buffer) => fromServer.push(chunk));
  server.stdout.on('end', () => fromServer.end());
  server.stderr.pipe(stderr, { end: false });
  server.stderr.on('data', (chunk: Buffer) => serverStderr.push(chunk));
  server.stderr.on('end', () => serverStderr.end());
  // The host's stdin ending ends the server's (pipe's default): a stdio server exits when its input closes.
  stdin.pipe(serverStdin);
  const onClient = (chunk: Buffer) => fromClient.push(chunk);
  stdin.on('data', onClient);
  // The client's report: written when the server exits, and already a moment after the host's stdin ends (a
  // host that closes the pipe may not wait for the server).
  const report = () =>
    writeProxyReports(
      args.report,
      observed.after(0).map((m) => m.seen),
      {
        upstream: `stdio:${args.name}`,
        version: packageVersion(),
        dropped: tap.dropped,
        ...(baseline ? { baseline } : {}),
      },
      say,
    );
  let reportTimer: ReturnType<typeof setTimeout> | undefined;
  /** A moment from now, unless the server's exit writes it first: a host may not wait for the server. */
  const reportSoon = () => {
    if (wantsReport(args.report) && reportTimer === undefined)
      reportTimer = setTimeout(() => void report(), REPORT_AFTER_STDIN_MS);
  };
  stdin.once('end', () => {
    fromClient.end();
    reportSoon();
  });
  // A server that exits while the host still writes gives EPIPE here; its exit is what is reported.
  serverStdin.on('error', () => undefined);
  // A host that went away: the server's output has nowhere to go, and its stdin ends with the host's.
  let hostGone = false;
  const onStdoutError = (error: Error) => {
    if (hostGone) return;
    hostGone = true;
    say(`the host's end of stdout is closed (${error.message}); the server's output is dropped`);
    server.stdout.unpipe(stdout);
    server.stdout.resume();
  };
  stdout.on('error', onStdoutError);
  // Nor does a closed stderr end the proxy: the server's and Taskscope's lines are dropped, forwarding goes on.
  const onStderrError = () => {
    server.stderr.unpipe(stderr);
    server.stderr.resume();
  };
  stderr.on('error', onStderrError);

  // A host that sends SIGINT or SIGTERM may send SIGKILL next: the report is written a moment after either.
  const forward = (signal: NodeJS.Signals) => () => {
    signalServer(child, signal);
    if (signal !== 'SIGHUP') reportSoon();
  };
  const handlers = FORWARDED.map((signal) => [signal, forward(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);

  let running = true;
  const page = startPageServer(args, observed, say, () => running).catch((error: unknown) => {
    say(`the page could not start (${(error as Error).message}); the server's messages still pass`);
    return undefined;
  });

  const code = await ended;
  running = false;
  clearTimeout(reportTimer);
  if (wantsReport(args.report)) await report();

  for (const [signal, handler] of handlers) process.off(signal, handler);
  stdin.unpipe(serverStdin);
  stdin.off('data', onClient);
  // Nothing more goes to the server; stdin open would keep the proxy running after it.
  stdin.destroy();
  stdout.off('error', onStdoutError);
  stderr.off('error', onStderrError);
  await (await page)?.close();
  return code;
}

/**
 * Taskscope's server on the first free port from `--port` (a few tried), serving the tap's messages to the
 * page (/observed/*), its URL — the page on this server's observed traffic — said on stderr.
 */
async function startPageServer(
  args: StdioProxyArgs,
  observed: ObservedSource,
  say: (line: string) => void,
  running: () => boolean,
): Promise<StartedApp | undefined> {
  // Loaded once the server runs: the host's first message need not wait for the page's code.
  const { startApp } = await import('../../devserver/start.js');
  if (!running()) return undefined;
  const start = (port: number) =>
    startApp({
      port,
      observed: [observed],
      allowedHosts: allowedHostsFromEnv(),
      // Lets tests serve a build of their own, as `taskscope` does (test/e2e/run.mjs).
      ...(process.env.TASKSCOPE_DIST ? { staticDir: path.resolve(process.env.TASKSCOPE_DIST) } : {}),
    });
  const last = Math.min(args.port + PORT_TRIES - 1, 65535);
  let from = args.port;
  for (;;) {
    const port =
      args.port === 0 ? 0 : await nextFreePort(from, '127.0.0.1', last - from + 1).catch(() => undefined);
    if (port === undefined)
      throw new Error(`ports ${args.port} to ${last} are in use; pick another with --port N`);
    let page: StartedApp;
    try {
      page = await start(port);
    } catch (error) {
      // Taken between the look and the listen: the next one.
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' && port !== 0 && port < last) {
        from = port + 1;
        continue;
      }
      throw error;
    }
    if (!running()) {
      await page.close();
      return undefined;
    }
    const url = `${page.url}/?observe=${encodeURIComponent(args.name)}`;
    say(
      `${args.name}'s page: ${url}${port !== args.port && args.port !== 0 ? ` (port ${args.port} was in use)` : ''}`,
    );
    if (args.open) openBrowser(url, (line) => process.stderr.write(`${line}\n`));
    return page;
  }
}

/**
 * console.log and its kin write to stderr while the proxy runs: stdout is the server's, and a stray line from
 * anything in the process would corrupt the host's stream.
 */
function consoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug, dir: console.dir };
  const toStderr = (...values: unknown[]) => void process.stderr.write(`${format(...values)}\n`);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.dir = (value: unknown) => toStderr(value);
  return () => Object.assign(console, saved);
}
