import { spawn, type ChildProcess } from 'node:child_process';
import { repoRoot } from './stdio';

export interface RunningCli {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** Sends `signal` and resolves with how the command exited. */
  stop: (signal?: NodeJS.Signals) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The command from the sources, as `npm start` runs it. */
export const SOURCE_CLI = [process.execPath, '--import', 'tsx', 'src/cli/main.ts'];

type CliOptions = { command?: string[]; cwd?: string; env?: NodeJS.ProcessEnv };

/** Runs `taskscope` with `args` until it has printed its URL and banner (it is given --port 0 by the caller to pick a free one). */
export function startCli(args: string[], options: CliOptions = {}): Promise<RunningCli> {
  return launch(args, /^Taskscope \S+(?: \(dev\))? on (http:\/\/[^/\s]+)\/$/m, 'taskscope', options);
}

/** Runs `taskscope serve …` until it has printed its MCP endpoint and banner; `url` is the endpoint. */
export function startServe(args: string[], options: CliOptions = {}): Promise<RunningCli> {
  return launch(['serve', ...args], / on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m, 'taskscope serve', options);
}

/** Starts a command that serves until stopped; resolves once `url` (its first group) and the banner's last line are out. */
function launch(args: string[], url: RegExp, what: string, options: CliOptions): Promise<RunningCli> {
  const [program, ...pre] = options.command ?? SOURCE_CLI;
  const child = spawn(program!, [...pre, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = url.exec(output);
      // The last line of its banner: everything it had to say at start is out by then.
      if (match && output.includes('Ctrl-C stops it.')) {
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          child,
          output: () => output,
          stop: (signal = 'SIGINT') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${output}`));
    });
  });
}

/** What `taskscope …` prints and returns when it does not start a server (--help, --version, mistakes). */
export function runCli(
  args: string[],
  options: CliOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [program, ...pre] = options.command ?? SOURCE_CLI;
  const child = spawn(program!, [...pre, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** The per-start token, as the page asks for it. */
export async function tokenOf(url: string): Promise<string> {
  const response = await fetch(`${url}/relay/token`, { headers: { 'X-Taskscope-Token-Request': '1' } });
  return ((await response.json()) as { token: string }).token;
}
