import { createServer, type Server } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeStubDist } from '../helpers/stub-dist';
import { everythingCommand, fixtureCommand, isAlive, newRoute } from '../helpers/stdio';
import { runCli, startCli, tokenOf, type RunningCli } from '../helpers/taskscope-cli';
import { waitFor } from '../helpers/wait';

let dist: { dir: string; remove: () => Promise<void> };
let folder: string;
let cli: RunningCli | undefined;
const env = () => ({ TASKSCOPE_DIST: dist.dir, PORT: '' });

beforeAll(async () => {
  dist = await makeStubDist();
  folder = await mkdtemp(path.join(tmpdir(), 'taskscope-cli-'));
});
afterAll(async () => {
  await dist?.remove();
  await rm(folder, { recursive: true, force: true });
});
afterEach(async () => {
  await cli?.stop();
  cli = undefined;
});

interface Snapshot {
  state: { phase: string; pid?: number };
  lines: Array<{ text: string }>;
}

describe('taskscope: the command', () => {
  // Four Node processes, each compiling the command through tsx, run side by side (they share nothing): on a
  // loaded 2-core machine they alone can take half a minute, hence the longer deadline.
  it('says its version and its usage, and refuses mistakes with exit code 2 and a sentence', async () => {
    // Every parse mistake and its sentence is tested in-process (src/cli/start/args.test.ts); here, that the
    // process says one and exits 2, for a flag and for a config file that cannot be read.
    const mistakes: Array<[string[], RegExp]> = [
      [['--bogus'], /Unknown option '--bogus'/],
      [['--config', path.join(folder, 'missing.json')], /no such file/],
    ];
    const [version, help, ...wrong] = await Promise.all([
      runCli(['--version']),
      runCli(['--help']),
      ...mistakes.map(([args]) => runCli(args, { env: env() })),
    ]);
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n' });
    expect(help?.code).toBe(0);
    expect(help?.stdout).toContain('taskscope --stdio [name=NAME]');
    mistakes.forEach(([args, says], i) => {
      expect(wrong[i]?.code, args.join(' ')).toBe(2);
      expect(wrong[i]?.stderr, args.join(' ')).toMatch(says);
    });
  }, 120_000);

  it('says when the port is taken, and which one is free', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const run = await runCli(['--no-open', '--port', String(port)], { env: env() });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(`port ${port} is in use .*Port \\d+ is free: taskscope --port \\d+`),
      );
    } finally {
      blocker.close();
    }
  });

  it('opens the root on the receiver it was given', async () => {
    cli = await startCli(['--no-open', '--port', '0', 'http://127.0.0.1:3001/mcp'], { env: env() });
    const root = await fetch(`${cli.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe(`/?server=${encodeURIComponent('http://127.0.0.1:3001/mcp')}`);
    expect(cli.output()).toContain('opens on      http://127.0.0.1:3001/mcp');
  });

  it('with --allow-remote keeps the token from pages that ask for it and prints it instead', async () => {
    cli = await startCli(['--no-open', '--port', '0', '--allow-remote', '--host', '127.0.0.1'], {
      env: env(),
    });
    const printed = /^ {2}token +(\S+)$/m.exec(cli.output())?.[1];
    expect(printed).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const asked = await fetch(`${cli.url}/relay/token`, { headers: { 'X-Taskscope-Token-Request': '1' } });
    expect(asked.status).toBe(403);
    expect(asked.headers.get('x-taskscope-token-entry')).toBe('required');
    expect(await asked.text()).not.toContain(printed!);
    // The printed token is the relay's: with it the relay gets as far as vetting the target.
    const relayed = await fetch(`${cli.url}/relay`, {
      method: 'POST',
      headers: {
        'X-Taskscope-Relay-Token': printed!,
        'X-Taskscope-Target': 'http://169.254.169.254/mcp',
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(relayed.status).not.toBe(401);
  });

  it('Ctrl-C stops every stdio server, one that ignores SIGTERM and what it started included', async () => {
    const config = path.join(folder, 'servers.json');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          everything: { command: everythingCommand().command, args: everythingCommand().args },
          stubborn: { command: fixtureCommand('stubborn').command, args: fixtureCommand('stubborn').args },
        },
      }),
    );
    cli = await startCli(['--no-open', '--port', '0', '--config', config], { env: env() });
    const token = await tokenOf(cli.url);
    const pids: number[] = [];
    for (const name of ['everything', 'stubborn']) {
      const route = newRoute(token);
      const headers = { 'X-Taskscope-Relay-Token': token, 'X-Taskscope-Stdio-Connection': route.connection };
      // The first request starts the process; the stubborn one never answers, so the answer is not awaited.
      const controller = new AbortController();
      void fetch(`${cli.url}/stdio/${name}/mcp`, {
        method: 'POST',
        signal: controller.signal,
        headers: {
          ...headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      }).catch(() => undefined);
      let snapshot: Snapshot | undefined;
      const read = async () => {
        const response = await fetch(`${cli!.url}/stdio/${name}/console`, { headers });
        snapshot = (await response.json()) as Snapshot;
      };
      const ready = (s?: Snapshot) =>
        s?.state.phase === 'running' &&
        (name !== 'stubborn' || s.lines.some((l) => l.text.includes('grandchild pid')));
      await read();
      while (!ready(snapshot)) {
        await new Promise((r) => setTimeout(r, 50));
        await read();
      }
      pids.push(snapshot!.state.pid!);
      const grandchild = /grandchild pid (\d+)/.exec(snapshot!.lines.map((l) => l.text).join('\n'))?.[1];
      if (grandchild) pids.push(Number(grandchild));
      controller.abort();
    }
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(isAlive(pid)).toBe(true);

    const exit = await cli.stop('SIGINT');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(cli.output()).toContain('Stopping 2 stdio servers');
    expect(cli.output()).toContain('SIGKILL');
    // Exited means reaped by now; the grandchild was re-parented when its parent went and is gone with it.
    await waitFor(() => pids.every((pid) => !isAlive(pid)), 5000);
    cli = undefined;
  }, 30_000);
});
