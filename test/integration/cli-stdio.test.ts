import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/stdio';
import { runInProcess } from '../helpers/run-command';

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
    const run = await runInProcess(['check', '--stdio', 'name=demo', ...STDIO_DEMO]);
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
    ]) {
      const run = await runInProcess(argv);
      expect(run.code, argv.join(' ')).toBe(2);
    }
  });
});
