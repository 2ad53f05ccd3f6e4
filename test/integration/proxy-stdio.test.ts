import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as Client2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransport2 } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { EVERYTHING_ENTRY, isAlive, repoRoot } from '../helpers/stdio';
import { makeStubDist } from '../helpers/stub-dist';
import { SOURCE_CLI, tokenOf } from '../helpers/taskscope-cli';
import { waitFor } from '../helpers/wait';
import { observedStream, summary } from '../helpers/observed';

/**
 * `taskscope proxy --stdio -- cmd…` as a host runs it: a real process between the SDK's StdioClientTransport
 * and a real stdio server, the bytes compared at both ends (test/servers/stdio-tee.mjs keeps a copy of each
 * side's), the exit codes and signals passed on, and the page beside it.
 */
const PROXY = [...SOURCE_CLI, 'proxy', '--stdio'];
const TEE = path.join(repoRoot, 'test/servers/stdio-tee.mjs');
const EVERYTHING = [process.execPath, EVERYTHING_ENTRY, 'stdio'];
const DEMO_2026 = [process.execPath, '--import', 'tsx', 'src/devserver/demo-2026/stdio-main.ts'];
const PAGE_LINE =
  /^taskscope proxy: \S+'s page: (http:\/\/127\.0\.0\.1:(\d+)\/)\?observe=\S+(?: \(port (\d+) was in use\))?$/m;

let dist: { dir: string; remove: () => Promise<void> };
let scratch: string;
beforeAll(async () => {
  dist = await makeStubDist();
  scratch = await mkdtemp(path.join(tmpdir(), 'taskscope-proxy-stdio-'));
});
afterAll(async () => {
  await dist?.remove();
  await rm(scratch, { recursive: true, force: true });
});

/** A host: the SDK 1.32 client over StdioClientTransport, running `command` with stderr kept. */
async function host(command: string[], ctx: TestContext, env: Record<string, string> = {}) {
  const [program, ...args] = command as [string, ...string[]];
  const transport = new StdioClientTransport({
    command: program,
    args,
    cwd: repoRoot,
    env: { ...(process.env as Record<string, string>), TASKSCOPE_DIST: dist.dir, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'proxy-stdio-host', version: '1.0.0' });
  ctx.onTestFinished(() => client.close().catch(() => undefined));
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** The proxy run directly, its three streams ours: what it writes, how it exits. */
function proxyProcess(
  command: string[],
  ctx: TestContext,
  flags: string[] = ['--port', '0'],
  env: Record<string, string> = {},
) {
  const child = spawn(process.execPath, [...PROXY.slice(1), 'name=t', ...flags, '--', ...command], {
    cwd: repoRoot,
    env: { ...process.env, TASKSCOPE_DIST: dist.dir, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  ctx.onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, exited, stdout: () => Buffer.concat(stdout).toString(), stderr: () => stderr };
}

/** A stdio server in one line of Node: does `body`, then says `ready` (and its pid) on stderr. */
const nodeServer = (body: string) => [
  process.execPath,
  '-e',
  `${body}; process.stderr.write('ready ' + process.pid + '\\n')`,
];
const pidIn = (stderr: string) => Number(/^ready (\d+)$/m.exec(stderr)?.[1]);

describe('taskscope proxy --stdio', () => {
  it('server-everything behind it: the client and the server each get every byte the other sent, unchanged', async (ctx) => {
    const hostSide = await mkdtemp(path.join(scratch, 'host-'));
    const serverSide = await mkdtemp(path.join(scratch, 'server-'));
    const { client, stderr } = await host(
      [
        process.execPath,
        TEE,
        hostSide,
        '--',
        ...PROXY,
        '--',
        process.execPath,
        TEE,
        serverSide,
        '--',
        ...EVERYTHING,
      ],
      ctx,
    );
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-servers/everything' });
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('echo');
    // Not ASCII, a line separator JSON leaves raw, quotes: the bytes a re-serialising proxy could change.
    const message = 'héllo ✓ — \u2028 "quoted"';
    const echoed = await client.callTool({ name: 'echo', arguments: { message } });
    expect(echoed.content).toEqual([{ type: 'text', text: `Echo: ${message}` }]);

    // The page's URL, on stderr, serves the page.
    await waitFor(() => PAGE_LINE.test(stderr()), 10_000);
    const pageUrl = PAGE_LINE.exec(stderr())![1]!;
    const page = await fetch(pageUrl);
    expect(await page.text()).toContain('taskscope-test-index');

    await client.close();
    const read = (dir: string, file: 'in' | 'out') => readFile(path.join(dir, file));
    const [hostIn, hostOut, serverIn, serverOut] = await Promise.all([
      read(hostSide, 'in'),
      read(hostSide, 'out'),
      read(serverSide, 'in'),
      read(serverSide, 'out'),
    ]);
    expect(hostIn.toString()).toContain('"method":"tools/call"');
    expect(serverIn.equals(hostIn)).toBe(true);
    // stdout carries the server's bytes and nothing else.
    expect(serverOut.toString()).toContain('héllo ✓');
    expect(hostOut.equals(serverOut)).toBe(true);
  });

  it('the page reads the messages both ways at /observed/*, from the first, then live', async (ctx) => {
    const { client, stderr } = await host([...PROXY, 'name=ev', '--port', '0', '--', ...EVERYTHING], ctx);
    await client.listTools();
    await waitFor(() => PAGE_LINE.test(stderr()), 10_000);
    const page = new URL(/'s page: (\S+)/.exec(stderr())![1]!);
    expect(page.search).toBe('?observe=ev');
    const token = await tokenOf(page.origin);
    const sources = await fetch(`${page.origin}/observed/sources`, {
      headers: { 'X-Taskscope-Relay-Token': token },
    });
    expect(await sources.json()).toEqual({ sources: [{ name: 'ev', kind: 'stdio', upstream: 'stdio:ev' }] });

    const stream = await observedStream(page.origin, { source: 'ev' }, token);
    ctx.onTestFinished(() => stream.close());
    await waitFor(() => summary(stream.lines).includes('client tools/list'), 10_000);
    // The server may say more on its own (log notifications): the handshake's order is what holds.
    const told = summary(stream.lines);
    expect(told[0]).toBe('client initialize');
    expect(told.indexOf('server result')).toBeLessThan(told.indexOf('client notifications/initialized'));
    const before = stream.lines.length;
    await client.callTool({ name: 'echo', arguments: { message: 'seen live' } });
    await waitFor(() => summary(stream.lines.slice(before)).includes('server result'), 10_000);
    const call = stream.lines.find((l) => summary([l])[0] === 'client tools/call');
    expect(call?.seen).toEqual({
      at: expect.any(Number),
      wallTime: call?.seen?.at,
      from: 'client',
      message: expect.objectContaining({ method: 'tools/call' }),
    });
    const seqs = stream.lines.map((l) => l.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));

    // The server's stderr reaches the page's console panel too, read as the stdio bridge's console is.
    const consoleOf = async () =>
      (await (
        await fetch(`${page.origin}/observed/console?source=ev&after=0`, {
          headers: { 'X-Taskscope-Relay-Token': token },
        })
      ).json()) as {
        command: string;
        state: { phase: string; pid?: number };
        lines: Array<{ stream: string; text: string }>;
      };
    const shown = await consoleOf();
    expect(shown.state).toMatchObject({ phase: 'running', pid: expect.any(Number) });
    expect(shown.command).toContain('server-everything');
    expect(shown.lines).toContainEqual(
      expect.objectContaining({ stream: 'stderr', text: expect.stringContaining('Starting') }),
    );
    expect((await fetch(`${page.origin}/observed/console?source=ev`)).status).toBe(403);
  });

  it('writes the client report files when the host closes: the client named, judged by the client rules', async (ctx) => {
    const json = path.join(scratch, 'client.json');
    const junit = path.join(scratch, 'client.xml');
    const [program, ...args] = [
      ...PROXY,
      '--port',
      '0',
      '--json',
      json,
      '--junit',
      junit,
      '--',
      ...EVERYTHING,
    ] as [string, ...string[]];
    const transport = new StdioClientTransport({
      command: program,
      args,
      cwd: repoRoot,
      env: { ...(process.env as Record<string, string>), TASKSCOPE_DIST: dist.dir },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'report-host', version: '2.0.0' });
    ctx.onTestFinished(() => client.close().catch(() => undefined));
    await client.connect(transport);
    await client.listTools();
    await client.close();
    await waitFor(() => existsSync(json) && existsSync(junit), 10_000);
    const report = JSON.parse(await readFile(json, 'utf8')) as {
      version: number;
      outcome: string;
      clients: Array<{ name: string; version: string; rules: Array<{ side: string; verdict: string }> }>;
    };
    expect(report).toMatchObject({
      version: 2,
      outcome: 'pass',
      clients: [{ name: 'report-host', version: '2.0.0' }],
    });
    expect(report.clients[0]?.rules.every((r) => r.side === 'client' && r.verdict !== 'fail')).toBe(true);
    expect(await readFile(junit, 'utf8')).toContain('<testsuite name="taskscope proxy: report-host 2.0.0"');
  });

  it('the server exits with 3: so does the proxy, with nothing of its own on stdout', async (ctx) => {
    const proxy = proxyProcess(nodeServer(`process.stdout.write('{"a":1}\\n'); process.exit(3)`), ctx);
    expect(await proxy.exited).toEqual({ code: 3, signal: null });
    expect(proxy.stdout()).toBe('{"a":1}\n');
    expect(proxy.stderr()).toMatch(/^taskscope proxy: t exited with code 3$/m);
  });

  it('the server gets the environment the host gave the proxy, with --env over it', async (ctx) => {
    const proxy = proxyProcess(
      nodeServer(
        `process.stdout.write(JSON.stringify({ key: process.env.HOST_KEY, over: process.env.OVER }) + '\\n'); process.exit(0)`,
      ),
      ctx,
      ['--port', '0', '--env', 'OVER=from-flag'],
      { HOST_KEY: 'from-host-config', OVER: 'from-host' },
    );
    expect((await proxy.exited).code).toBe(0);
    expect(JSON.parse(proxy.stdout())).toEqual({ key: 'from-host-config', over: 'from-flag' });
  });

  it('a command that is not found: 127, and stderr says so', async (ctx) => {
    const proxy = proxyProcess(['taskscope-no-such-command'], ctx);
    expect(await proxy.exited).toEqual({ code: 127, signal: null });
    expect(proxy.stderr()).toMatch(/^taskscope proxy: command not found: taskscope-no-such-command$/m);
    expect(proxy.stdout()).toBe('');
  });

  it('SIGINT and SIGHUP reach the server and not the proxy; SIGTERM ends the server, and the proxy exits 143', async (ctx) => {
    const proxy = proxyProcess(
      nodeServer(
        `process.stdin.resume(); for (const s of ['SIGINT', 'SIGHUP']) process.on(s, () => process.stderr.write('got ' + s + '\\n'))`,
      ),
      ctx,
    );
    await waitFor(() => /^ready \d+$/m.test(proxy.stderr()), 10_000);
    const server = pidIn(proxy.stderr());
    proxy.child.kill('SIGINT');
    await waitFor(() => proxy.stderr().includes('got SIGINT'), 10_000);
    proxy.child.kill('SIGHUP');
    await waitFor(() => proxy.stderr().includes('got SIGHUP'), 10_000);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exited).toEqual({ code: 143, signal: null });
    expect(isAlive(server)).toBe(false);
    expect(proxy.stderr()).toMatch(/^taskscope proxy: t was ended by SIGTERM$/m);
    expect(proxy.stdout()).toBe('');
  });

  it("bytes pass as they come, never re-serialised; closing the proxy's stdin closes the server's", async (ctx) => {
    const proxy = proxyProcess(
      nodeServer(
        `process.stdin.on('data', (c) => process.stdout.write(c)); process.stdin.on('end', () => process.exit(7))`,
      ),
      ctx,
    );
    await waitFor(() => /^ready \d+$/m.test(proxy.stderr()), 10_000);
    // Spacing, escapes and a number JSON.stringify would write otherwise; half a line reaches the server (and
    // comes back) before the rest is written.
    const head = '{ "jsonrpc" : "2.0",\t"method":"x", ';
    const tail = '"params":{"s":"\\u00e9\\/é","n":1.0e0} }\r\n';
    proxy.child.stdin.write(head);
    await waitFor(() => proxy.stdout() === head, 10_000);
    proxy.child.stdin.end(tail);
    expect(await proxy.exited).toEqual({ code: 7, signal: null });
    expect(proxy.stdout()).toBe(head + tail);
  });

  it('a port in use: the page takes the next free one and says so on stderr', async (ctx) => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    ctx.onTestFinished(() => void taken.close());
    const port = (taken.address() as net.AddressInfo).port;
    const proxy = proxyProcess(nodeServer(`process.stdin.resume()`), ctx, ['--port', String(port)]);
    await waitFor(() => PAGE_LINE.test(proxy.stderr()), 10_000);
    const [, url, actual, wasInUse] = PAGE_LINE.exec(proxy.stderr())!;
    expect(Number(actual)).toBeGreaterThan(port);
    expect(Number(wasInUse)).toBe(port);
    expect((await fetch(url!)).status).toBe(200);
    proxy.child.stdin.end();
    expect((await proxy.exited).code).toBe(0);
    expect(proxy.stdout()).toBe('');
  });

  it('the page cannot start: forwarding goes on, and stderr says why (our 2026-07-28 demo, the SDK 2 client)', async (ctx) => {
    const transport = new StdioClientTransport2({
      command: process.execPath,
      args: [...PROXY.slice(1), '--', ...DEMO_2026],
      cwd: repoRoot,
      env: {
        ...(process.env as Record<string, string>),
        TASKSCOPE_DIST: path.join(scratch, 'no-build-here'),
      },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client2(
      { name: 'proxy-stdio-host', version: '2.0.0' },
      {
        capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
        versionNegotiation: { mode: 'auto' },
      },
    );
    ctx.onTestFinished(() => client.close().catch(() => undefined));
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    await waitFor(() => /the page could not start/.test(stderr), 10_000);
    expect(stderr).toMatch(
      /^taskscope proxy: the page could not start \(No build in .*no-build-here\. .*\); the server's messages still pass$/m,
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('slow_job');
    expect(await client.callTool({ name: 'echo', arguments: { message: 'still here' } })).toMatchObject({
      content: [{ type: 'text', text: expect.stringContaining('still here') }],
    });
  });
});
