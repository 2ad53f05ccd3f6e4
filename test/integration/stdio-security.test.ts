import { request } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type StartedApp } from '../../src/devserver/start';
import { makeStubDist } from '../helpers/stub-dist';
import { everythingCommand, isAlive, newRoute } from '../helpers/stdio';
import { initializeRequest } from '../helpers/initialize';

// Node's fetch will not set Host; the bridge must be checked with the headers a hostile page or a rebinding
// name would bring, so these go through node:http.
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      // An event stream that was let through stays open: its status and type are enough to tell.
      if (res.headers['content-type']?.startsWith('text/event-stream')) {
        res.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
        return;
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const INITIALIZE = (extra: Record<string, unknown> = {}) =>
  JSON.stringify(initializeRequest('security-test', extra));

let app: StartedApp;
let dist: { dir: string; remove: () => Promise<void> };
let port: string;
const marker = path.join(tmpdir(), `taskscope-must-not-exist-${process.pid}`);

beforeAll(async () => {
  dist = await makeStubDist();
  app = await startApp({
    port: 0,
    staticDir: dist.dir,
    stdio: { receivers: [{ name: 'everything', command: everythingCommand() }] },
  });
  port = new URL(app.url).port;
});
afterAll(async () => {
  await app?.close();
  await dist?.remove();
});
afterEach(async () => {
  await Promise.all(app.stdio!.connections().map((c) => c.stop('test over')));
});

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Every bridge route, as the page would call it. */
const routes = () => [
  { method: 'POST', path: '/stdio/everything/mcp', headers: MCP_HEADERS, body: INITIALIZE() },
  { method: 'GET', path: '/stdio/everything/mcp', headers: { accept: 'text/event-stream' } },
  { method: 'DELETE', path: '/stdio/everything/mcp', headers: {} },
  { method: 'GET', path: '/stdio/everything/console', headers: {} },
  { method: 'POST', path: '/stdio/everything/stop', headers: {} },
];

function refusal(answer: Answer): string {
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const parsed = JSON.parse(answer.body) as { error: { message: string } };
  return parsed.error.message;
}

describe('the stdio bridge refuses what is not Taskscope’s own page', () => {
  it('refuses a foreign Origin, a foreign Host, a cross-site fetch and a missing or wrong token on every route', async () => {
    for (const route of routes()) {
      const url = `${app.url}${route.path}`;
      const good = {
        ...route.headers,
        'x-taskscope-relay-token': app.relayToken,
        'x-taskscope-stdio-connection': newRoute(app.relayToken).connection,
      };
      const cases: Array<{ what: string; headers: Record<string, string>; status: number; says: RegExp }> = [
        {
          what: 'foreign Origin',
          headers: { ...good, origin: 'https://evil.example' },
          status: 403,
          says: /own page/,
        },
        {
          what: 'foreign Host',
          headers: { ...good, host: `evil.example:${port}` },
          status: 403,
          says: /own page/,
        },
        {
          what: 'rebinding Host',
          headers: { ...good, host: `127.0.0.1.evil.example:${port}` },
          status: 403,
          says: /own page/,
        },
        {
          what: 'cross-site fetch',
          headers: { ...good, 'sec-fetch-site': 'cross-site' },
          status: 403,
          says: /own page/,
        },
        {
          what: 'no token',
          headers: Object.fromEntries(Object.entries(good).filter(([k]) => k !== 'x-taskscope-relay-token')),
          status: 401,
          says: /X-Taskscope-Relay-Token/,
        },
        {
          what: 'wrong token',
          headers: { ...good, 'x-taskscope-relay-token': 'x'.repeat(43) },
          status: 401,
          says: /X-Taskscope-Relay-Token/,
        },
      ];
      for (const c of cases) {
        const answer = await send(url, { method: route.method, headers: c.headers, body: route.body });
        expect(answer.status, `${route.method} ${route.path}: ${c.what}`).toBe(c.status);
        expect(refusal(answer), `${route.method} ${route.path}: ${c.what}`).toMatch(c.says);
      }
    }
    // Nothing refused started a process.
    expect(app.stdio!.connections()).toHaveLength(0);
    // And the page itself gets through (the same request, from its own origin).
    const own = await send(`${app.url}/stdio/everything/mcp`, {
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        origin: app.url,
        'sec-fetch-site': 'same-origin',
        'x-taskscope-relay-token': app.relayToken,
        'x-taskscope-stdio-connection': newRoute(app.relayToken).connection,
      },
      body: INITIALIZE(),
    });
    expect(own.status).toBe(200);
    expect(own.headers['content-type']).toBe('text/event-stream');
  });

  it('lets nothing a page sends choose what runs: every route, with commands in the body, query, headers and path', async () => {
    const attempt = { command: 'touch', args: [marker], env: { X: '1' }, cwd: tmpdir() };
    const query = `?command=touch&args=${encodeURIComponent(marker)}&cwd=%2Ftmp`;
    const headers = (connection: string) => ({
      ...MCP_HEADERS,
      'x-taskscope-relay-token': app.relayToken,
      'x-taskscope-stdio-connection': connection,
      'x-taskscope-command': `touch ${marker}`,
      'x-taskscope-stdio-command': `touch ${marker}`,
      'x-taskscope-target': `file://${marker}`,
    });
    const connection = newRoute(app.relayToken).connection;
    // The MCP route: a command in the initialize params is just data for the server; the query is ignored.
    const init = await send(`${app.url}/stdio/everything/mcp${query}`, {
      method: 'POST',
      headers: headers(connection),
      body: INITIALIZE(attempt),
    });
    expect(init.status).toBe(200);
    const get = await send(`${app.url}/stdio/everything/mcp${query}`, {
      headers: { ...headers(connection), accept: 'text/event-stream' },
    });
    expect(get.status).toBe(200);
    const consoleRead = await send(`${app.url}/stdio/everything/console${query}`, {
      headers: headers(connection),
    });
    expect(consoleRead.status).toBe(200);
    // No route takes a command: start, spawn, restart, config, exec are not routes at all.
    for (const verb of ['start', 'spawn', 'restart', 'config', 'exec', 'run']) {
      const answer = await send(`${app.url}/stdio/everything/${verb}${query}`, {
        method: 'POST',
        headers: headers(newRoute(app.relayToken).connection),
        body: JSON.stringify(attempt),
      });
      expect(answer.status, verb).toBe(404);
    }
    // Only names given on the command line are servers; a path in the name is no way out.
    for (const name of [
      'touch',
      '..%2F..%2Fbin%2Ftouch',
      'everything%2F..%2Ftouch',
      '%2Fbin%2Fsh',
      '.',
      '..',
    ]) {
      const answer = await send(`${app.url}/stdio/${name}/mcp`, {
        method: 'POST',
        headers: headers(newRoute(app.relayToken).connection),
        body: INITIALIZE(attempt),
      });
      expect(answer.status, name).toBe(404);
    }
    const stop = await send(`${app.url}/stdio/everything/stop${query}`, {
      method: 'POST',
      headers: headers(newRoute(app.relayToken).connection),
      body: JSON.stringify(attempt),
    });
    expect(stop.status).toBe(204);

    // What ran is the configured command, exactly, and nothing else did.
    const running = app.stdio!.connections().filter((c) => c.alive);
    expect(running).toHaveLength(1);
    const child = running[0]!.child!;
    expect(child.command).toEqual(everythingCommand());
    expect(isAlive(child.pid!)).toBe(true);
    const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(argv).toEqual([everythingCommand().command, ...everythingCommand().args]);
    expect(existsSync(marker)).toBe(false);
  });
});
