import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { parse as parseJunit, type TestCase, type TestSuite, type TestSuites } from 'junit2json';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTrace } from '../../src/engine/trace/schema';
import { listenOnLoopback } from '../../src/devserver/http-server';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { startSdk24Receiver } from '../helpers/sdk24-receiver';
import { runInProcess } from '../helpers/run-command';

/**
 * `taskscope check` against real receivers started here: the demo receiver (well-behaved, and with the faults
 * that break one rule each), a strict 2026-07-28 receiver written on server 2.4 alone, one with no task tool,
 * and a port nothing listens on. Its JUnit file is read back with junit2json, a JUnit reader from the registry.
 */
let folder: string;
const later = stopAfterEach();
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'taskscope-check-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});
const demo = () => demoFor(later);
/**
 * The check's waits, shortened as in active-check.test.ts (a person's run asks for a ttl of 1.5 s and looks 1 s
 * after it ran out; here 0.5 s and 0.3 s): what each run here grades is the same, seen sooner. The tasks it
 * started are followed 1 s at most afterwards, not 5 s: under ?faults=wrong-unknown-code a purged task never
 * reads gone (its tasks/get answers another code), so that wait runs out in full, and no assertion here is
 * about it. Its tasks are read again 1 s after their end, not 3 s.
 */
const quick = {
  checkTiming: { shortTtlMs: 500, expiryGraceMs: 300, readAgainAfterMs: 1000 },
  checkSettleMs: 1000,
};
/**
 * On the demo's slow_job (6 s) also tasks/result held 0.5 s, not 2 s: as blocking, the task far from its end.
 * Not on the faults case's job (0.6 s), whose tasks/result answers at its end anyway.
 */
const onSlowJob = { ...quick, checkTiming: { ...quick.checkTiming, blockProbeMs: 500 } };

const file = (name: string) => path.join(folder, name);

/** The file as a JUnit reader sees it: its one suite (counts) and its testcases by rule id. */
async function junitOf(name: string) {
  const parsed = (await parseJunit(await readFile(file(name), 'utf8'))) as TestSuites | undefined;
  const suite: TestSuite = parsed?.testsuite?.[0] ?? {};
  const cases: TestCase[] = suite.testcase ?? [];
  const byRule = new Map(cases.map((c) => [String(c.name).split(':')[0], c]));
  return { parsed: suite, cases, byRule };
}

describe('taskscope check', () => {
  it('passes the demo receiver (exit 0), with a JUnit file of one testcase per rule and a trace the page opens', async () => {
    const receiver = await demo();
    const run = await runInProcess(
      [
        'check',
        receiver.url,
        '--junit',
        file('pass.xml'),
        '--json',
        file('pass.json'),
        '--markdown',
        file('pass.md'),
        '--trace',
        file('pass.trace.json'),
      ],
      onSlowJob,
    );
    expect(run.stderr).toContain('running slow_job as a task');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^PASS \(\d+\)$/m);
    expect(run.stdout).not.toMatch(/^FAIL/m);
    expect(run.stdout).toContain('spec: https://modelcontextprotocol.io/specification/2025-11-25/');
    // No progress line when stderr is not a terminal.
    expect(run.stderr).not.toContain('\r');

    const { parsed, cases, byRule } = await junitOf('pass.xml');
    const json = JSON.parse(await readFile(file('pass.json'), 'utf8')) as {
      format: string;
      version: number;
      outcome: string;
      rules: Array<{ id: string; side: string; verdict: string }>;
    };
    expect(json).toMatchObject({ format: 'taskscope-check', version: 2, outcome: 'pass', clients: [] });
    expect(new Set(json.rules.map((r) => r.side))).toEqual(new Set(['receiver']));
    expect(cases.length).toBe(json.rules.length);
    expect(parsed.failures).toBe(0);
    const unobserved = json.rules.filter((r) => r.verdict === 'unobserved');
    expect(parsed.skipped).toBe(unobserved.length);
    for (const rule of unobserved) expect(byRule.get(rule.id)?.skipped).toBeDefined();
    expect(byRule.get('unknown-task-error')?.failure).toBeUndefined();

    expect(await readFile(file('pass.md'), 'utf8')).toMatch(/^## Taskscope report card/);
    const trace = parseTrace(JSON.parse(await readFile(file('pass.trace.json'), 'utf8')));
    if (!trace.ok) throw new Error(trace.errors.join('\n'));
    expect(trace.trace.tasks.some((t) => t.tool === 'slow_job')).toBe(true);
    // The rules judged every message: the run's traffic is in the trace, tasks/get among it.
    expect(trace.trace.traffic.some((event) => event.method === 'tasks/get')).toBe(true);
  });

  // What a server author runs: a job held 3 s, so the check sees it run, end, and read again after the end.
  const held = ['--tool', 'job', '--args', '{"durationMs":3000}'];
  it.each([
    ['terminal-changes', 'status-transitions'],
    ['required-runs-plain', 'tool-task-support'],
  ])('fails the demo with ?faults=%s (exit 1): %s is a JUnit failure', async (fault, rule) => {
    const receiver = await demo();
    const run = await runInProcess(
      ['check', `${receiver.url}?faults=${fault}`, ...held, '--junit', file(`${fault}.xml`)],
      quick,
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^Result: FAIL \\(exit 1\\): failed: .*${rule}`, 'm'));
    const { parsed, byRule } = await junitOf(`${fault}.xml`);
    expect(parsed.failures).toBeGreaterThanOrEqual(1);
    const failure = (
      byRule.get(rule)?.failure as Array<{ message?: string; type?: string }> | undefined
    )?.[0];
    expect(failure).toMatchObject({ type: 'fail' });
  });

  it('warns on ?faults=forbidden-tool-runs: exit 0, and exit 1 with --fail-on warn', async () => {
    const receiver = await demo();
    const url = `${receiver.url}?faults=forbidden-tool-runs`;
    const brief = ['--tool', 'job', '--args', '{"durationMs":1000}'];
    const warned = await runInProcess(['check', url, ...brief], quick);
    expect(warned.code).toBe(0);
    expect(warned.stdout).toMatch(/^WARN \(1\)$/m);
    expect(warned.stdout).toContain('[capability-absent-error]');
    const strict = await runInProcess(['check', url, ...brief, '--fail-on', 'warn'], quick);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/^Result: FAIL \(exit 1\): failed: capability-absent-error/m);
  });

  it(
    'takes a baseline: a listed failure is expected (exit 0), a listed rule that passes is stale (exit 1)',
    { timeout: 60_000 },
    async () => {
      const receiver = await demo();
      const url = `${receiver.url}?faults=wrong-unknown-code`;
      await writeFile(file('baseline.json'), JSON.stringify({ expectedFailures: ['unknown-task-error'] }));
      const expected = await runInProcess(
        ['check', url, '--baseline', file('baseline.json'), '--junit', file('b.xml')],
        quick,
      );
      expect(expected.code).toBe(0);
      expect(expected.stdout).toContain('baseline: expected');
      expect((await junitOf('b.xml')).byRule.get('unknown-task-error')?.skipped).toBeDefined();

      const fixed = await runInProcess(
        ['check', receiver.url, '--baseline', file('baseline.json'), '--junit', file('s.xml')],
        onSlowJob,
      );
      expect(fixed.code).toBe(1);
      expect(fixed.stdout).toMatch(/failed: unknown-task-error \(stale baseline entry\)/);
      const stale = (await junitOf('s.xml')).byRule.get('unknown-task-error')?.failure as Array<{
        type?: string;
      }>;
      expect(stale[0]?.type).toBe('stale-baseline');

      await writeFile(file('bad-baseline.json'), JSON.stringify(['no-such-rule']));
      const bad = await runInProcess(['check', url, '--baseline', file('bad-baseline.json')], quick);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/"no-such-rule" is not a rule id/);
    },
  );

  it(
    'checks a strict 2026-07-28 receiver on server 2.4 (detected, and forced with --protocol)',
    { timeout: 60_000 },
    async () => {
      const receiver = await startSdk24Receiver({ mode: 'strict' });
      later(receiver.close);
      const detected = await runInProcess(['check', receiver.url, '--json', file('2026.json')], quick);
      expect(detected.stdout).toMatch(/^ {2}protocol {2}2026-07-28$/m);
      expect(detected.stdout).toContain('ext-tasks/specification/2026-07-28');
      expect(detected.code).toBe(0);
      const forced = await runInProcess(['check', receiver.url, '--protocol', '2026-07-28'], quick);
      expect(forced.code).toBe(0);
      expect(receiver.arrivals.some((a) => a.method === 'tools/call')).toBe(true);
    },
  );

  it('gives up on a port nothing listens on after --timeout (exit 4)', async () => {
    const port = await freePort();
    const run = await runInProcess(
      ['check', `http://127.0.0.1:${port}/mcp`, '--timeout', '1', '--junit', file('down.xml')],
      quick,
    );
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/no answer within 1 s/);
    const { parsed } = await junitOf('down.xml');
    expect(parsed.errors).toBe(1);
  });

  it('is incomplete (exit 3) with the reason when no tool can run as a task', async () => {
    const plain = await plainReceiver();
    const none = await runInProcess(['check', plain], quick);
    expect(none.code).toBe(3);
    expect(none.stdout).toMatch(/^Result: INCOMPLETE \(exit 3\): no task could be run: /m);

    const receiver = await demo();
    const named = await runInProcess(['check', receiver.url, '--tool', 'echo'], quick);
    expect(named.code).toBe(3);
    expect(named.stdout).toMatch(/echo is not a tool the check can run as a task/);
  });

  it('runs a named tool with --args, and refuses mistakes with exit 2', async () => {
    const receiver = await demo();
    const run = await runInProcess(
      [
        'check',
        receiver.url,
        '--tool',
        'slow_job',
        '--args',
        '{"durationMs": 2000, "steps": 2}',
        '--json',
        file('args.json'),
      ],
      onSlowJob,
    );
    expect(run.code).toBe(0);
    const json = JSON.parse(await readFile(file('args.json'), 'utf8')) as { tool: unknown };
    expect(json.tool).toEqual({ name: 'slow_job', args: { durationMs: 2000, steps: 2 }, chosenBy: 'flag' });
    for (const argv of [
      ['check'],
      ['check', 'not a url'],
      ['check', receiver.url, '--args', '{}'],
      ['check', receiver.url, '--tool', 'x', '--args', '[1]'],
      ['check', receiver.url, '--fail-on', 'info'],
      ['check', receiver.url, '--timeout', '0'],
      ['check', receiver.url, '--header', 'no colon'],
      ['check', receiver.url, '--nope'],
    ]) {
      const wrong = await runInProcess(argv);
      expect(wrong.code, argv.join(' ')).toBe(2);
      expect(wrong.stderr).toContain('Try taskscope check --help.');
    }
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An MCP receiver on SDK 1.x with one plain tool and no tasks at all (stateless Streamable HTTP). */
async function plainReceiver(): Promise<string> {
  const app = express();
  app.use(express.json());
  app.post('/mcp', async (req, res) => {
    const server = new McpServer({ name: 'plain', version: '1.0.0' });
    server.registerTool('hello', { description: 'Says hello' }, () => ({
      content: [{ type: 'text', text: 'hello' }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const listening = await listenOnLoopback(app, 0);
  later(listening.close);
  return `${listening.url}/mcp`;
}
