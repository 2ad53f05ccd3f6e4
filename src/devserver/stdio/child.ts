/**
 * One stdio MCP server process: spawned from the command line the person gave (never from anything a page
 * sends), framed line by line on stdout, its stderr kept in a console ring, and stopped the way the MCP stdio
 * transport asks (stdin closed, then SIGTERM, then SIGKILL after a grace period), its whole process group with
 * it, so `npx …` wrappers leave no server behind.
 */
import type { ChildProcess } from 'node:child_process';
import spawn from 'cross-spawn';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { ConsoleRing } from './console-ring.js';
import { LineReader } from './line-reader.js';

export interface StdioCommand {
  command: string;
  args: string[];
  /** Added to the SDK's default environment (HOME, PATH, SHELL, TERM, USER, LOGNAME), as MCP clients do. */
  env: Record<string, string>;
  cwd?: string;
}

/** A parsed JSON-RPC message from the server, kept as it came (the SDK's schema checked it, did not rewrite it). */
export type WireMessage = Record<string, unknown>;

/** What a page is told about the process. */
export type ChildState =
  | { phase: 'starting' }
  | { phase: 'running'; pid: number; startedAt: number }
  | {
      phase: 'exited';
      pid?: number;
      startedAt?: number;
      endedAt: number;
      code: number | null;
      signal: string | null;
      /** Why it could not be started at all (command not found, …). */
      spawnError?: string;
      /** Set when Taskscope stopped it, and why. */
      stoppedBy?: string;
    };

export interface ChildOptions {
  /** The longest line read from stdout; the SDK's own limit is 10 MB, results can be larger. */
  maxLineBytes?: number;
  /** How long a server gets after SIGTERM before SIGKILL. */
  graceMs?: number;
}

export const MAX_LINE_BYTES = 64 * 1024 * 1024;
export const KILL_GRACE_MS = 2000;
/** After stdin closes, how long a server gets to exit by itself before SIGTERM. */
const STDIN_GRACE_MS = 500;

const isPosix = process.platform !== 'win32';

function validMessage(value: unknown): value is WireMessage {
  if (JSONRPCMessageSchema.safeParse(value).success) return true;
  // JSON-RPC allows an error with a null id (a request it could not read); the SDK's schema does not.
  const m = value as { jsonrpc?: unknown; id?: unknown; error?: { code?: unknown; message?: unknown } };
  return (
    typeof value === 'object' &&
    value !== null &&
    m.jsonrpc === '2.0' &&
    m.id === null &&
    typeof m.error?.code === 'number' &&
    typeof m.error.message === 'string'
  );
}

/**
 * Starts a stdio server as MCP clients do: the command itself (no shell), the SDK's default environment (HOME,
 * PATH, SHELL, TERM, USER, LOGNAME) plus the command's own `env`, all three streams piped. `base` replaces the
 * default environment where the caller's whole one is the server's (`proxy --stdio`: the host chose it). Throws
 * when it cannot be started at once; a command that is not found is the returned process's 'error'.
 */
export function spawnServer(
  { command, args, env, cwd }: StdioCommand,
  base: NodeJS.ProcessEnv = getDefaultEnvironment(),
): ChildProcess {
  return spawn(command, args, {
    env: { ...base, ...env },
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    shell: false,
    windowsHide: true,
    // Its own process group: a signal reaches what it started (npx → sh → node), and the terminal's Ctrl-C
    // reaches Taskscope alone, which then stops or signals every server itself.
    detached: isPosix,
  });
}

/** Sends `signal` to a server started by spawnServer and its whole process group; nothing when it is gone. */
export function signalServer(proc: ChildProcess, signal: NodeJS.Signals): void {
  const pid = proc.pid;
  if (pid === undefined) return;
  try {
    if (isPosix) process.kill(-pid, signal);
    else proc.kill(signal);
  } catch {
    // Gone already (ESRCH).
  }
}

const cut = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max)}…` : text);

export class StdioChild {
  state: ChildState = { phase: 'starting' };
  /** Lines on stdout that were not MCP messages, and the first of them. */
  nonMcpLines = 0;
  firstNonMcpLine: string | undefined;
  private proc: ChildProcess | undefined;
  private stopping: Promise<void> | undefined;
  private pendingStopReason: string | undefined;
  private readonly exited: Promise<void>;
  private markExited!: () => void;
  private readonly graceMs: number;
  private readonly maxLineBytes: number;

  constructor(
    readonly command: StdioCommand,
    readonly console: ConsoleRing,
    private readonly onMessage: (message: WireMessage) => void,
    private readonly onExit: () => void,
    options: ChildOptions = {},
  ) {
    this.graceMs = options.graceMs ?? KILL_GRACE_MS;
    this.maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
    this.exited = new Promise((resolve) => (this.markExited = resolve));
  }

  start(): void {
    const { command, args } = this.command;
    this.console.push('bridge', `Starting: ${[command, ...args].join(' ')}`);
    let proc: ChildProcess;
    try {
      proc = spawnServer(this.command);
    } catch (error) {
      this.ended({ code: null, signal: null, spawnError: (error as Error).message });
      return;
    }
    this.proc = proc;
    proc.once('spawn', () => {
      if (this.state.phase !== 'starting' || proc.pid === undefined) return;
      this.state = { phase: 'running', pid: proc.pid, startedAt: Date.now() };
      this.console.push('bridge', `Started, pid ${proc.pid}`);
    });
    proc.once('error', (error: NodeJS.ErrnoException) => {
      // Only a failed spawn ends it here; after a spawn, 'exit' says how it ended.
      if (this.state.phase === 'starting')
        this.ended({
          code: null,
          signal: null,
          spawnError: error.code === 'ENOENT' ? `command not found: ${command}` : error.message,
        });
    });
    proc.once('exit', (code, signal) => this.ended({ code, signal }));

    const stdout = new LineReader(
      this.maxLineBytes,
      (line) => this.readLine(line),
      (bytes) =>
        this.console.push(
          'bridge',
          `A line of ${bytes} bytes on stdout is over the ${this.maxLineBytes}-byte limit: dropped.`,
        ),
    );
    proc.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    proc.stdout?.on('end', () => stdout.end());
    const stderr = new LineReader(
      64 * 1024,
      (line) => this.console.push('stderr', line),
      (bytes) => this.console.push('bridge', `A line of ${bytes} bytes on stderr was too long to keep.`),
    );
    proc.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    proc.stderr?.on('end', () => stderr.end());
    // A server that exits while we write gives EPIPE: its exit is reported, the write error is not news.
    proc.stdin?.on('error', () => undefined);
  }

  get pid(): number | undefined {
    return this.state.phase === 'running' || this.state.phase === 'exited' ? this.state.pid : undefined;
  }

  get alive(): boolean {
    return this.state.phase !== 'exited';
  }

  /** One message, one line: JSON.stringify writes no raw newline, so nothing can ride along into its input. */
  send(message: unknown): boolean {
    const stdin = this.proc?.stdin;
    if (!this.alive || !stdin || stdin.destroyed || !stdin.writable) return false;
    stdin.write(`${JSON.stringify(message)}\n`);
    return true;
  }

  /** stdin closed, SIGTERM, SIGKILL after the grace period; resolves once it has exited. */
  stop(reason: string): Promise<void> {
    if (!this.alive) return Promise.resolve();
    this.stopping ??= (async () => {
      this.console.push('bridge', `Stopping (${reason})`);
      this.pendingStopReason = reason;
      this.proc?.stdin?.end();
      if (await this.exitWithin(Math.min(STDIN_GRACE_MS, this.graceMs))) return;
      this.signal('SIGTERM');
      if (await this.exitWithin(this.graceMs)) return;
      this.console.push('bridge', `Still running ${this.graceMs} ms after SIGTERM: SIGKILL`);
      this.signal('SIGKILL');
      await this.exited;
    })();
    return this.stopping;
  }

  /** One sentence on how it ended, with its last stderr lines: what a page is told. */
  describeEnd(): string {
    const state = this.state;
    if (state.phase !== 'exited') return state.phase === 'running' ? `running, pid ${state.pid}` : 'starting';
    let how = state.spawnError
      ? `could not be started (${state.spawnError})`
      : state.code !== null
        ? `exited with code ${state.code}`
        : `was ended by ${state.signal ?? 'a signal'}`;
    if (state.stoppedBy) how += ` (stopped by Taskscope: ${state.stoppedBy})`;
    const stderr = this.console.last('stderr', 3);
    if (stderr.length > 0) how += `: ${stderr.map((line) => cut(line, 300)).join(' ⏎ ')}`;
    if (this.nonMcpLines > 0)
      how += `. It wrote ${this.nonMcpLines} line${this.nonMcpLines === 1 ? '' : 's'} to stdout that ${this.nonMcpLines === 1 ? 'is' : 'are'} not MCP (first: ${JSON.stringify(cut(this.firstNonMcpLine ?? ''))})`;
    return how;
  }

  private readLine(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    if (value !== undefined && validMessage(value)) {
      this.onMessage(value);
      return;
    }
    this.nonMcpLines++;
    if (this.nonMcpLines === 1) {
      this.firstNonMcpLine = line;
      this.console.push(
        'bridge',
        'The server wrote a line to stdout that is not an MCP message. stdout carries JSON-RPC messages only, one per line; logs belong on stderr.',
      );
    }
    this.console.push('stdout', line);
  }

  private exitWithin(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void this.exited.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private signal(signal: NodeJS.Signals): void {
    if (this.proc) signalServer(this.proc, signal);
  }

  private ended(how: { code: number | null; signal: string | null; spawnError?: string }): void {
    if (this.state.phase === 'exited') return;
    const previous = this.state;
    this.state = {
      phase: 'exited',
      pid: previous.phase === 'running' ? previous.pid : this.proc?.pid,
      startedAt: previous.phase === 'running' ? previous.startedAt : undefined,
      endedAt: Date.now(),
      ...how,
      ...(this.pendingStopReason ? { stoppedBy: this.pendingStopReason } : {}),
    };
    // Whatever it left in its group is an orphan now.
    if (!how.spawnError) this.signal('SIGKILL');
    this.console.push('bridge', `The server ${this.describeEnd()}`);
    this.markExited();
    this.onExit();
  }
}
