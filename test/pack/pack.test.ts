import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { everythingCommand, newRoute, repoRoot } from '../helpers/stdio';
import { runCli, startCli, startServe, tokenOf, type RunningCli } from '../helpers/taskscope-cli';
import { startDemoReceiver } from '../helpers/receivers';
import { initializeRequest } from '../helpers/initialize';

const exec = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const version = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string })
  .version;

let work: string;
let installed: string;
let bin: string[];
let cli: RunningCli | undefined;

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'taskscope-pack-'));
  // `npm pack` runs prepack: the page and the compiled command are built from the sources, as from a clone.
  await exec(npm, ['pack', '--pack-destination', work], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
  const tarball = path.join(work, `taskscope-${version}.tgz`);
  expect(existsSync(tarball)).toBe(true);
  // Under a folder whose name starts with a dot, as npx installs packages (~/.npm/_npx/…).
  installed = path.join(work, '.npm', '_npx', 'user');
  await mkdir(installed, { recursive: true });
  await writeFile(path.join(installed, 'package.json'), '{"private": true}\n');
  await exec(npm, ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
    cwd: installed,
    maxBuffer: 64 * 1024 * 1024,
  });
  bin = [path.join(installed, 'node_modules/.bin/taskscope')];
});
afterEach(async () => {
  await cli?.stop();
  cli = undefined;
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

// No PORT from the environment, no stand-in build: the package must carry its own.
const env = { PORT: '', TASKSCOPE_DIST: '' };

describe('the packed package, installed without dev dependencies', () => {
  it('installed only what runs: no Vite, tsx, React or TypeScript', () => {
    const modules = path.join(installed, 'node_modules');
    for (const dev of ['vite', 'tsx', 'typescript', 'react', 'react-dom', 'vitest', '@playwright/test'])
      expect(existsSync(path.join(modules, dev)), dev).toBe(false);
    expect(existsSync(path.join(modules, 'taskscope/dist/index.html'))).toBe(true);
    expect(existsSync(path.join(modules, 'taskscope/src'))).toBe(false);
  });

  it('says its version', async () => {
    const run = await runCli(['--version'], { command: bin, cwd: installed, env });
    expect(run).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('serves the page and the demo receiver', async () => {
    cli = await startCli(['--no-open', '--port', '0'], { command: bin, cwd: installed, env });
    // A deep link (the page's own query) is served the page too.
    const page = await fetch(`${cli.url}/?server=%2Fdemo%2Fmcp-2026`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<div id="root"');
    const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const bundle = await fetch(`${cli.url}${script}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);

    const initialize = await fetch(`${cli.url}/demo/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initializeRequest('pack-test')),
    });
    expect(initialize.status).toBe(200);
    expect(await initialize.text()).toContain('taskscope-demo');
  });

  it('runs a stdio server through its bridge', async () => {
    const { command, args } = everythingCommand();
    cli = await startCli(['--no-open', '--port', '0', '--stdio', 'name=everything', '--', command, ...args], {
      command: bin,
      cwd: installed,
      env,
    });
    const root = await fetch(`${cli.url}/`, { redirect: 'manual' });
    expect(root.headers.get('location')).toBe(`/?server=${encodeURIComponent('/stdio/everything/mcp')}`);
    const token = await tokenOf(cli.url);
    const answer = await fetch(`${cli.url}/stdio/everything/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'X-Taskscope-Relay-Token': token,
        'X-Taskscope-Stdio-Connection': newRoute(token).connection,
      },
      body: JSON.stringify(initializeRequest('pack-test')),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('mcp-session-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(await answer.json()).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'mcp-servers/everything' } },
    });
  });

  it('checks a receiver and watches a task without a browser (check and watch are in the bundle)', async () => {
    const receiver = await startDemoReceiver();
    try {
      const check = await runCli(['check', receiver.url], { command: bin, cwd: installed, env });
      expect(check.stdout).toMatch(/^Result: PASS \(exit 0\)/m);
      expect(check.code).toBe(0);
      const watch = await runCli(
        ['watch', receiver.url, '--tool', 'slow_job', '--args', '{"durationMs": 300, "steps": 1}'],
        { command: bin, cwd: installed, env },
      );
      expect(watch.stdout).toContain('Finished job: 1 steps in 300 ms.');
      expect(watch.code).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('serves the shipped demo trace as a receiver (serve --demo finds it in the package)', async () => {
    cli = await startServe(['--demo', '--port', '0', '--speed', '4'], { command: bin, cwd: installed, env });
    const post = async (body: object, session?: string) => {
      const res = await fetch(cli!.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...body }),
      });
      return { res, message: (await res.json()) as { result: { tools: Array<{ name: string }> } } };
    };
    const init = await post({
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'pack', version: '1' } },
    });
    const session = init.res.headers.get('mcp-session-id') ?? undefined;
    const { message } = await post({ method: 'tools/list', params: {} }, session);
    expect(message.result.tools.map((t) => t.name)).toContain('ask_user');
  });
});
