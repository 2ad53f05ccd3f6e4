import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type StartedApp } from '../../src/devserver/start';
import { FAULT_DESCRIPTIONS, FAULT_NAMES } from '../../src/devserver/demo-faults/faults';
import { initializeRequest } from '../helpers/initialize';

// The issue asks for curl tests: the real client, so no Node fetch quirk (Host is a forbidden header there) helps.
const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const FOREIGN = 'evil.example:5173';
const INITIALIZE = JSON.stringify(initializeRequest('curl-test'));
const MCP_ACCEPT = 'application/json, text/event-stream';

interface CurlResult {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface CurlOptions {
  method?: string;
  host?: string;
  headers?: Record<string, string>;
  data?: string;
  dataFile?: string;
}

async function curl(url: string, options: CurlOptions = {}): Promise<CurlResult> {
  const args = ['-sS', '--max-time', '5', '-D', '-', '--path-as-is'];
  if (options.method) args.push('-X', options.method);
  if (options.host) args.push('-H', `Host: ${options.host}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`);
  if (options.data !== undefined) args.push('--data-binary', options.data);
  if (options.dataFile !== undefined) args.push('--data-binary', `@${options.dataFile}`);
  args.push(url);
  let stdout: string;
  try {
    ({ stdout } = await run('curl', args, { maxBuffer: 16 * 1024 * 1024 }));
  } catch (error) {
    // A timed-out stream (the bug this guards against) still has its status line: let the assertion say so.
    const partial = (error as { stdout?: string }).stdout;
    if (!partial) throw error;
    stdout = partial;
  }
  return parseResponse(stdout);
}

function parseResponse(raw: string): CurlResult {
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    const head = end < 0 ? rest : rest.slice(0, end);
    rest = end < 0 ? '' : rest.slice(end + 4);
    const [statusLine = '', ...lines] = head.split('\r\n');
    const status = Number(/^HTTP\/\S+ (\d{3})/.exec(statusLine)?.[1]);
    if (!status) throw new Error(`curl printed no status line:\n${raw.slice(0, 500)}`);
    // Skip interim answers such as 100 Continue.
    if (status >= 200) {
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      return { status, headers, body: rest };
    }
  }
}

function jsonRpcErrorOf(result: CurlResult): { code: number; message: string } {
  expect(result.headers['content-type']).toMatch(/^application\/json/);
  const parsed = JSON.parse(result.body) as {
    jsonrpc: string;
    id: unknown;
    error: { code: number; message: string };
  };
  expect(parsed).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number) } });
  return parsed.error;
}

/** No HTML error page, no stack frame, no path on this machine. */
function expectNoLeak(body: string, ...paths: string[]): void {
  expect(body).not.toMatch(/<html|<pre>/i);
  expect(body).not.toMatch(/^\s*at\s/m);
  expect(body).not.toMatch(/\bat [^\n]*\(/);
  for (const fragment of ['/work', 'node_modules', repoRoot, ...paths]) expect(body).not.toContain(fragment);
}

/** GET of the demo faults listing: JSON naming each fault, what it does and its rule; refused like the rest. */
async function expectFaultsListing(url: string, endpoint: string): Promise<void> {
  const listed = await curl(url);
  expect(listed.status).toBe(200);
  expect(listed.headers['content-type']).toMatch(/^application\/json/);
  // (Not expectNoLeak: the faults' own descriptions read "at once (…".)
  for (const fragment of ['node_modules', repoRoot]) expect(listed.body).not.toContain(fragment);
  const body = JSON.parse(listed.body) as {
    faults: { use: string; names: Record<string, { does: string; breaks: string }> };
    authFaults: { use: string; names: Record<string, { breaks: string | null }> };
  };
  expect(body.faults.use).toBe(`${endpoint}?faults=a,b`);
  expect(Object.keys(body.faults.names)).toEqual(FAULT_NAMES);
  expect(body.faults.names['bogus-cursor-accepted']).toEqual({
    does: FAULT_DESCRIPTIONS['bogus-cursor-accepted'],
    breaks: 'list-paging',
  });
  expect(body.authFaults.use).toBe(`${endpoint}-auth?faults=a,b`);
  expect(body.authFaults.names['basic-auth']).toEqual({ breaks: null });
  expect((await curl(url, { host: FOREIGN })).status).toBe(403);
  expect((await curl(url, { headers: { Origin: 'https://evil.example' } })).status).toBe(403);
}

async function makeDist(): Promise<string> {
  // A stand-in build: vitest runs before `vite build` in `npm test`, so dist/ may not exist yet.
  const dir = await mkdtemp(path.join(tmpdir(), 'taskscope-dist-'));
  await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>taskscope-test-index</title>\n');
  return dir;
}

describe('npm start server: Host allow-list and JSON-RPC errors (curl)', () => {
  let app: StartedApp;
  let dist: string;
  let port: string;
  const mcp = () => `${app.url}/demo/mcp`;

  beforeAll(async () => {
    dist = await makeDist();
    app = await startApp({ port: 0, staticDir: dist, allowedHosts: ['taskscope.example'] });
    port = new URL(app.url).port;
    expect(new URL(app.url).hostname).toBe('127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
    await rm(dist, { recursive: true, force: true });
  });

  async function initialize(host?: string): Promise<CurlResult> {
    return curl(mcp(), {
      host,
      headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT },
      data: INITIALIZE,
    });
  }

  it('answers initialize for loopback Host names and configured ones', async () => {
    for (const host of [undefined, `localhost:${port}`, `[::1]:${port}`, 'taskscope.example']) {
      const result = await initialize(host);
      expect(result.status, `Host ${host ?? '(curl default)'}`).toBe(200);
      expect(result.headers['mcp-session-id']).toBeTruthy();
    }
  });

  it('refuses initialize from a foreign Host with a JSON-RPC 403', async () => {
    for (const host of [FOREIGN, `localhost.evil.example:${port}`, `127.0.0.1.evil.example:${port}`]) {
      const result = await initialize(host);
      expect(result.status, `Host ${host}`).toBe(403);
      expect(jsonRpcErrorOf(result).code).toBe(-32600);
      expect(result.headers['mcp-session-id']).toBeUndefined();
    }
  });

  it('refuses the GET stream of a real session from a foreign Host', async () => {
    const sessionId = (await initialize()).headers['mcp-session-id']!;
    const result = await curl(mcp(), {
      host: FOREIGN,
      headers: {
        Accept: 'text/event-stream',
        'Mcp-Session-Id': sessionId,
        'Mcp-Protocol-Version': '2025-11-25',
      },
    });
    expect(result.status).toBe(403);
    expect(jsonRpcErrorOf(result).code).toBe(-32600);
  });

  it('refuses the dashboard itself from a foreign Host, in plain text', async () => {
    const loopback = await curl(`${app.url}/`);
    expect(loopback.status).toBe(200);
    expect(loopback.body).toContain('taskscope-test-index');

    for (const url of [`${app.url}/`, `${app.url}/?task=abc`, `${app.url}/assets/app.js`]) {
      const result = await curl(url, { host: FOREIGN });
      expect(result.status, url).toBe(403);
      expect(result.headers['content-type']).toMatch(/^text\/plain/);
      expect(result.body).not.toContain('taskscope-test-index');
    }
  });

  it('keeps the Origin check: a loopback Host with a foreign Origin is refused', async () => {
    const result = await curl(mcp(), {
      headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT, Origin: 'https://evil.example' },
      data: INITIALIZE,
    });
    expect(result.status).toBe(403);
    jsonRpcErrorOf(result);
  });

  it('lets a page served under a configured Host call its own receiver (same origin)', async () => {
    const result = await curl(mcp(), {
      host: 'taskscope.example',
      headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT, Origin: 'http://taskscope.example' },
      data: INITIALIZE,
    });
    expect(result.status).toBe(200);
  });

  it('answers malformed JSON with 400 and a -32700 Parse error, no stack or path', async () => {
    const result = await curl(mcp(), {
      headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT },
      data: '{"jsonrpc":"2.0","id":1,',
    });
    expect(result.status).toBe(400);
    expect(jsonRpcErrorOf(result)).toMatchObject({
      code: -32700,
      message: expect.stringMatching(/parse error/i),
    });
    expectNoLeak(result.body, dist);
  });

  it('answers an oversized body with 413 and a JSON-RPC error', async () => {
    const big = path.join(dist, 'big.json');
    await writeFile(big, JSON.stringify({ ...JSON.parse(INITIALIZE), pad: 'x'.repeat(2 * 1024 * 1024) }));
    const result = await curl(mcp(), {
      headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT },
      dataFile: big,
    });
    expect(result.status).toBe(413);
    expect(jsonRpcErrorOf(result)).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/too large/i),
    });
    expectNoLeak(result.body, dist);
  });

  it('answers a non-JSON content type with a JSON-RPC -32600', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const result = await curl(mcp(), {
        headers: { 'Content-Type': type, Accept: MCP_ACCEPT },
        data: INITIALIZE,
      });
      expect(result.status, type).toBe(415);
      expect(jsonRpcErrorOf(result).code).toBe(-32600);
    }
  });

  it('answers other bad bodies with JSON-RPC -32600, never HTML', async () => {
    const cases: { headers: Record<string, string>; data: string; status: number }[] = [
      { headers: { 'Content-Type': 'application/json; charset=latin9' }, data: INITIALIZE, status: 415 },
      {
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        data: INITIALIZE,
        status: 400,
      },
      { headers: { 'Content-Type': 'application/json' }, data: '{"hello":"world"}', status: 400 },
    ];
    for (const { headers, data, status } of cases) {
      const result = await curl(mcp(), { headers: { ...headers, Accept: MCP_ACCEPT }, data });
      expect(result.status, JSON.stringify(headers) + data).toBe(status);
      expect(jsonRpcErrorOf(result).code).toBe(-32600);
      expectNoLeak(result.body, dist);
    }
    const empty = await curl(mcp(), { method: 'POST', headers: { Accept: MCP_ACCEPT } });
    expect(empty.status).toBe(400);
    expect(jsonRpcErrorOf(empty).code).toBe(-32600);
  });

  it('answers unknown methods and sub-paths of the receiver in JSON-RPC', async () => {
    const put = await curl(mcp(), { method: 'PUT' });
    expect(put.status).toBe(405);
    jsonRpcErrorOf(put);
    const sub = await curl(`${mcp()}/nothing-here`, { method: 'POST' });
    expect(sub.status).toBe(404);
    jsonRpcErrorOf(sub);
  });

  it("lists the demo faults at /demo/faults (docs/demo.md's address under npm start)", async () => {
    await expectFaultsListing(`${app.url}/demo/faults`, '/demo/mcp');
  });

  it('answers unknown routes elsewhere in plain text', async () => {
    const result = await curl(`${app.url}/`, { method: 'POST', data: 'x' });
    expect(result.status).toBe(404);
    expect(result.headers['content-type']).toMatch(/^text\/plain/);
    expectNoLeak(result.body, dist);
  });
});

describe('npm start server: errors outside the receiver (curl)', () => {
  let app: StartedApp | undefined;
  let dist: string | undefined;
  afterEach(async () => {
    await app?.close();
    if (dist) await rm(dist, { recursive: true, force: true });
    app = undefined;
    dist = undefined;
  });

  it('never renders the default HTML error page with a stack or path', async () => {
    dist = await makeDist();
    app = await startApp({ port: 0, staticDir: dist });
    // The build vanishing under a running server makes sendFile fail with an ENOENT naming the path.
    await rm(path.join(dist, 'index.html'));
    const result = await curl(`${app.url}/?task=abc`);
    expect(result.status).toBeGreaterThanOrEqual(400);
    expect(result.headers['content-type']).toMatch(/^text\/plain/);
    expectNoLeak(result.body, dist);
    expect(result.body).not.toContain('ENOENT');
  });
});

describe('npm run receiver: Host allow-list (curl)', () => {
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'src/devserver/receiver-main.ts'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: '0', ALLOWED_HOSTS: 'receiver.example' },
    });
    let output = '';
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receiver did not start:\n${output}`)), 20_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /on (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`receiver exited with ${code}:\n${output}`));
      });
    });
  });
  afterAll(async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  });

  it('answers loopback and ALLOWED_HOSTS names, refuses others in JSON-RPC at /mcp', async () => {
    const post = (host?: string) =>
      curl(`${url}/mcp`, {
        host,
        headers: { 'Content-Type': 'application/json', Accept: MCP_ACCEPT },
        data: INITIALIZE,
      });
    expect((await post()).status).toBe(200);
    expect((await post('receiver.example:3001')).status).toBe(200);
    const refused = await post(FOREIGN);
    expect(refused.status).toBe(403);
    expect(jsonRpcErrorOf(refused).code).toBe(-32600);
  });

  it("lists the demo faults at /faults (docs/demo.md's address under npm run receiver)", async () => {
    await expectFaultsListing(`${url}/faults`, '/mcp');
  });

  it('refuses a foreign Host elsewhere in plain text and parses errors as JSON-RPC', async () => {
    const other = await curl(`${url}/`, { host: FOREIGN });
    expect(other.status).toBe(403);
    expect(other.headers['content-type']).toMatch(/^text\/plain/);
    const malformed = await curl(`${url}/mcp`, {
      headers: { 'Content-Type': 'application/json' },
      data: '{',
    });
    expect(malformed.status).toBe(400);
    expect(jsonRpcErrorOf(malformed).code).toBe(-32700);
    expectNoLeak(malformed.body);
  });
});
