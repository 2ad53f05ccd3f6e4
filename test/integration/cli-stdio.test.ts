import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseTrace } from '../../src/engine/trace/schema';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/stdio';
import { runInProcess } from '../helpers/run-command';
import { SOURCE_CLI } from '../helpers/taskscope-cli';
import { waitFor } from '../helpers/wait';

/**
 * `check` and `watch` with `--stdio -- cmd…`: our 2026-07-28 demo receiver run as a stdio server by the command
 * itself, reached through the same bridge the page uses, and stopped when the command ends.
 */
const STDIO_DEMO = [
  '--cwd',
  repoRoot,
  '--',
  process.execPath,
  '--import',
  'tsx',
  'src/devserver/demo-2026/stdio-main.ts',
];

/** This process's children still running (zombies not counted), by their command lines. */
function runningChildren(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [, state, ppid] = /\) (\S) (\d+)/.exec(stat) ?? [];
      if (Number(ppid) !== process.pid || state === 'Z') continue;
      found.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const demoRunning = () => runningChildren().filter((line) => line.includes('stdio-main.ts'));

/** Live processes (any parent) whose environment holds `mark`. */
function marked(mark: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) continue;
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(mark)) found.push(Number(pid));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

describe('taskscope over stdio', () => {
  it('watch runs a task on a stdio server to its result, and the server is stopped when it ends', async () => {
    const run = await runInProcess([
      'watch',
      '--stdio',
      '--tool',
      'slow_job',
      '--args',
      '{"durationMs": 400, "steps": 2, "pollIntervalMs": 200, "label": "stdio"}',
      ...STDIO_DEMO,
    ]);
    expect(run.stderr).not.toMatch(/unreachable|refused/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^slow_job started task \S+$/m);
    expect(run.stdout).toMatch(/^result:\n.*stdio/m);
    expect(demoRunning()).toEqual([]);
  });

  it('check judges a stdio server as it judges an HTTP one, naming it stdio:NAME', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'taskscope-stdio-'));
    const traceFile = path.join(folder, 'run.trace.json');
    // The check's waits shortened as in cli-check.test.ts: what is checked here is the stdio path, not them.
    const run = await runInProcess(['check', '--stdio', 'name=demo', '--trace', traceFile, ...STDIO_DEMO], {
      checkTiming: { blockProbeMs: 500, shortTtlMs: 500, expiryGraceMs: 300, cancelSettleMs: 1000 },
      checkSettleMs: 1000,
    });
    // The trace names the receiver by the bridge's URL, as the page records a stdio connection: it opens.
    const trace = parseTrace(JSON.parse(await readFile(traceFile, 'utf8')));
    await rm(folder, { recursive: true, force: true });
    expect(trace.ok && trace.trace.receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/stdio\/demo\/mcp$/);
    expect(run.stdout).toMatch(/receiver {2}stdio:demo/);
    expect(run.stdout).toMatch(/^Result: PASS \(exit 0\)/m);
    expect(run.code).toBe(0);
    expect(demoRunning()).toEqual([]);
  });

  it('a stdio command that is no MCP server is unreachable (exit 4), and mistakes are exit 2', async () => {
    const broken = await runInProcess([
      'watch',
      '--stdio',
      '--tool',
      'x',
      '--connect-timeout',
      '10',
      '--',
      process.execPath,
      '-e',
      'process.exit(3)',
    ]);
    expect(broken.code).toBe(4);
    for (const argv of [
      ['watch', '--stdio', '--tool', 'x'],
      ['watch', 'http://127.0.0.1:1/mcp', '--stdio', '--tool', 'x', '--', 'node'],
      ['check', '--env', 'A=1', 'http://127.0.0.1:1/mcp'],
      ['check', 'http://127.0.0.1:1/mcp', '--', 'node'],
      ['check', '--stdio', '--header', 'A: 1', '--', 'node'],
    ]) {
      const run = await runInProcess(argv);
      expect(run.code, argv.join(' ')).toBe(2);
    }
  });

  it('Ctrl-C on check stops the stdio server too, though it runs in a process group of its own', async () => {
    const mark = `TASKSCOPE_TEST_MARK=${randomBytes(8).toString('hex')}`;
    // A server that never answers and does not end when its stdin closes: only a signal stops it.
    const child = spawn(
      SOURCE_CLI[0]!,
      [
        ...SOURCE_CLI.slice(1),
        'check',
        '--stdio',
        'name=silent',
        '--env',
        mark,
        '--',
        process.execPath,
        '-e',
        'setInterval(() => {}, 1000)',
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // tsx starts the command from the sources: slow on a loaded machine, hence the long deadline.
      await waitFor(() => marked(mark).length === 1, 60_000, 100);
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(marked(mark)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
      for (const pid of marked(mark)) process.kill(pid, 'SIGKILL');
    }
  }, 90_000);

  it('watch ends with exit 4 and says how, when its stdio server dies while the task runs', async () => {
    const mark = `TASKSCOPE_TEST_MARK=${randomBytes(8).toString('hex')}`;
    const child = spawn(
      SOURCE_CLI[0]!,
      [
        ...SOURCE_CLI.slice(1),
        'watch',
        '--stdio',
        '--env',
        mark,
        '--tool',
        'slow_job',
        '--args',
        '{"durationMs": 600000, "steps": 2, "pollIntervalMs": 500, "label": "dies"}',
        ...STDIO_DEMO,
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitFor(() => /started task/.test(output), 60_000, 100);
      const [server] = marked(mark);
      process.kill(server!, 'SIGKILL');
      expect(await exited).toBe(4);
      expect(output).toMatch(/the stdio server was ended by SIGKILL/);
    } finally {
      child.kill('SIGKILL');
      for (const pid of marked(mark)) process.kill(pid, 'SIGKILL');
    }
  }, 90_000);
});
