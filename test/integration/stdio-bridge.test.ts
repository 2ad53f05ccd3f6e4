import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  McpSession,
  StdioBridgeError,
  TasksApi,
  classifyError,
  openSession,
  stdioFetch,
  type ReceiverSession,
  type StdioRoute,
} from '../../src/mcp';
import { createQueryClient } from '../../src/tracker/queries';
import { TaskTracker } from '../../src/tracker/tracker';
import { startApp, type StartedApp } from '../../src/devserver/start';
import type { BridgeConnection } from '../../src/devserver/stdio/connection';
import { makeStubDist } from '../helpers/stub-dist';
import { waitFor } from '../helpers/wait';
import { initializeRequest } from '../helpers/initialize';
import { demo2026Command, everythingCommand, fixtureCommand, isAlive, newRoute } from '../helpers/stdio';

let app: StartedApp;
let dist: { dir: string; remove: () => Promise<void> };
const sessions: Array<{ close: () => Promise<void> }> = [];

beforeAll(async () => {
  dist = await makeStubDist();
  app = await startApp({
    port: 0,
    staticDir: dist.dir,
    stdio: {
      receivers: [
        { name: 'everything', command: everythingCommand() },
        { name: 'noisy', command: fixtureCommand('noisy-server') },
        { name: 'not-mcp', command: fixtureCommand('garbage-exit') },
        { name: 'demo-2026', command: demo2026Command() },
      ],
      maxChildren: 3,
    },
  });
});
afterAll(async () => {
  await app?.close();
  await dist?.remove();
  // close() resolves once every process has exited.
  for (const conn of app.stdio!.connections())
    if (conn.child?.pid) expect(isAlive(conn.child.pid)).toBe(false);
});
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.close().catch(() => undefined);
  // Each test starts from no process, so the cap of 3 is each test's own.
  await Promise.all(app.stdio!.connections().map((c) => c.stop('test over')));
});

const urlOf = (name: string) => `${app.url}/stdio/${name}/mcp`;
const connectionOf = (route: StdioRoute): BridgeConnection =>
  app.stdio!.connections().find((c) => c.id === route.connection)!;

async function connect2025(name: string, route = newRoute(app.relayToken)) {
  const session = await McpSession.connect({ url: urlOf(name), fetch: stdioFetch(fetch, route) });
  sessions.push(session);
  return { session, route };
}

describe('the stdio bridge with server-everything in stdio mode', () => {
  it('runs a task: created, polled at its pollInterval, its result fetched, all through the bridge', async () => {
    const { session, route } = await connect2025('everything');
    // The bridge gives the process's 2025-11-25 session an id, as an HTTP server would.
    expect(session.sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect(session.describeServer()).toMatchObject({
      name: 'mcp-servers/everything',
      protocolVersion: '2025-11-25',
    });
    const api = new TasksApi(session);
    const tracker = new TaskTracker({ api, queryClient: createQueryClient(), connectionId: 1 });
    try {
      const tools = new Map((await api.listTools()).tools.map((t) => [t.name, t]));
      const created = await api.createTask(tools.get('simulate-research-query')!, { topic: 'tides' }, {});
      const taskId = created.value!.taskId;
      expect(created.value).toMatchObject({ status: 'working', pollInterval: 1000 });
      tracker.track(taskId, { origin: 'created', tool: 'simulate-research-query', initial: created });
      const record = () => tracker.store.getState().tasks.get(taskId)!;
      await waitFor(() => record().lifecycle === 'terminal' && record().result.state === 'fetched', 20_000);
      expect(record().status).toBe('completed');
      // The tracker fetched it the moment it completed; tasks/result is idempotent, so it can be read again.
      const { value } = await api.getTaskResult(taskId);
      expect(JSON.stringify(value.result)).toContain('Research Report: tides');
      const polls = record().entries.filter((e) => e.kind === 'observation' && e.source === 'poll') as Array<{
        sentAt: number;
        pollInterval?: number;
      }>;
      expect(polls.length).toBeGreaterThan(1);
      // Never sooner than the interval the server asked for when the gap began (a few ms of timer slack).
      for (let i = 1; i < polls.length; i++)
        expect(polls[i]!.sentAt - polls[i - 1]!.sentAt).toBeGreaterThanOrEqual(
          polls[i - 1]!.pollInterval! - 5,
        );
      // One process served it all, and its stderr is in the console.
      const conn = connectionOf(route);
      expect(conn.child!.state.phase).toBe('running');
      expect(conn.console.after(0).map((l) => l.text)).toContain('Starting default (STDIO) server...');
    } finally {
      tracker.dispose();
    }
  }, 30_000);

  it('gives two page connections two processes', async () => {
    // Started side by side: each process starts in about a second, and nothing here depends on the order.
    const [a, b] = await Promise.all([connect2025('everything'), connect2025('everything')]);
    await Promise.all([a, b].map(({ session }) => new TasksApi(session).listTools()));
    const pidA = connectionOf(a.route).child!.pid!;
    const pidB = connectionOf(b.route).child!.pid!;
    expect(pidA).not.toBe(pidB);
    expect(isAlive(pidA) && isAlive(pidB)).toBe(true);
    expect(a.session.sessionId).not.toBe(b.session.sessionId);
  });

  it('reports a process killed from outside with its exit status, does not start it again by itself, and a new connection brings it back', async () => {
    const { session, route } = await connect2025('everything');
    const api = new TasksApi(session);
    await api.listTools();
    const conn = connectionOf(route);
    const pid = conn.child!.pid!;
    process.kill(pid, 'SIGKILL');
    await waitFor(() => conn.child!.state.phase === 'exited', 10_000);
    expect(conn.child!.state).toMatchObject({ phase: 'exited', pid, code: null, signal: 'SIGKILL' });
    expect(conn.snapshot(0).summary).toMatch(/^was ended by SIGKILL: Starting default \(STDIO\) server/);

    const error = await api.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StdioBridgeError);
    expect(classifyError(error, { method: 'tools/list' })).toMatchObject({
      kind: 'other',
      httpStatus: 410,
      message: expect.stringContaining('The stdio server was ended by SIGKILL'),
    });
    // Asking again starts nothing: a crashing server is reported, not restarted in a loop.
    await api.listTools().catch(() => undefined);
    expect(app.stdio!.connections().filter((c) => c.alive)).toHaveLength(0);

    // Restart, as the console's button does it: a new page connection, a new process.
    const again = await connect2025('everything');
    await new TasksApi(again.session).listTools();
    const newPid = connectionOf(again.route).child!.pid!;
    expect(newPid).not.toBe(pid);
    expect(isAlive(newPid)).toBe(true);
  });

  it('reports lines on stdout that are not MCP, strips terminal colours, and goes on with the messages after them', async () => {
    const { session, route } = await connect2025('noisy');
    const { tools } = await new TasksApi(session).listTools();
    expect(tools.map((t) => t.name)).toContain('simulate-research-query');
    const snapshot = connectionOf(route).snapshot(0);
    expect(snapshot.nonMcpLines).toBe(2);
    const lines = snapshot.lines.map((l) => `${l.stream}: ${l.text}`);
    expect(lines).toContain('stdout: Server listening (this line belongs on stderr)');
    expect(lines).toContain('stdout: {"jsonrpc":"2.0","bogus":true}');
    expect(lines).toContain('stderr: coloured warning');
    expect(
      lines.some((l) => l.startsWith('bridge: The server wrote a line to stdout that is not an MCP message')),
    ).toBe(true);
  });

  it('answers the connect of a program that is no MCP server with why: its exit, its stderr and its stdout', async () => {
    const route = newRoute(app.relayToken);
    const error = await McpSession.connect({ url: urlOf('not-mcp'), fetch: stdioFetch(fetch, route) }).catch(
      (e: unknown) => e,
    );
    const classified = classifyError(error, { method: 'initialize' });
    expect(classified.message).toContain('exited with code 3');
    expect(classified.message).toContain('fatal: no config file');
    expect(classified.message).toContain('Listening on port 8080');
  });

  it('passes 2026-07-28 through unchanged: discovered, a task created and polled to its result', async () => {
    const route = newRoute(app.relayToken);
    const { session, detectedBy } = await openSession({
      url: urlOf('demo-2026'),
      fetch: stdioFetch(fetch, route),
    });
    sessions.push(session);
    expect(detectedBy).toBe('discover');
    expect(session.era).toBe('2026-07-28');
    expect(session.sessionId).toBeUndefined();
    const created = (await (session as ReceiverSession).request('tools/call', {
      name: 'slow_job',
      arguments: { durationMs: 300, steps: 1, pollIntervalMs: 100 },
    })) as { resultType: string; taskId: string; status: string };
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    let task: { status: string; result?: unknown } = created;
    const deadline = Date.now() + 10_000;
    while (task.status === 'working' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      task = (await session.request('tasks/get', { taskId: created.taskId })) as typeof task;
    }
    expect(task.status).toBe('completed');
    expect(task.result).toMatchObject({
      content: [{ type: 'text', text: 'Finished job: 1 steps in 300 ms.' }],
    });
  });

  it('refuses a page connection beyond the limit, saying so', async () => {
    // The three up to the limit, started side by side (each process takes about a second to start).
    await Promise.all(
      [0, 1, 2].map(async () => new TasksApi((await connect2025('everything')).session).listTools()),
    );
    const error = await McpSession.connect({
      url: urlOf('everything'),
      fetch: stdioFetch(fetch, newRoute(app.relayToken)),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StdioBridgeError);
    expect((error as StdioBridgeError).status).toBe(503);
    expect((error as Error).message).toMatch(/3 stdio servers are running already.*3 is the limit/);
  });
});

describe('the stdio bridge with processes no page uses', () => {
  it('stops a process no page has asked anything of for its idle time, and says so', async () => {
    const dir = await makeStubDist();
    const idle = await startApp({
      port: 0,
      staticDir: dir.dir,
      stdio: { receivers: [{ name: 'everything', command: everythingCommand() }], idleMs: 400 },
    });
    try {
      const route = newRoute(idle.relayToken);
      const session = await McpSession.connect({
        url: `${idle.url}/stdio/everything/mcp`,
        fetch: stdioFetch(fetch, route),
      });
      // Its GET stream would count as a page still there: closing the session leaves the process unused.
      await session.abandon();
      const conn = idle.stdio!.connections()[0]!;
      await waitFor(() => conn.child!.state.phase === 'exited', 10_000);
      expect(conn.child!.state).toMatchObject({ stoppedBy: 'no page used it for 400 ms' });
    } finally {
      await idle.close();
      await dir.remove();
    }
  });
});

describe('the stdio bridge counting idle time', () => {
  it('counts it from the end of a page’s last use: an initialize slower than the idle time is not idleness', async () => {
    const dir = await makeStubDist();
    const slow = fixtureCommand('slow-initialize');
    const idle = await startApp({
      port: 0,
      staticDir: dir.dir,
      stdio: {
        receivers: [{ name: 'slow', command: { ...slow, args: [...slow.args, '600'] } }],
        idleMs: 300,
      },
    });
    try {
      const send = stdioFetch(fetch, newRoute(idle.relayToken));
      const sentAt = Date.now();
      const answer = await send(`${idle.url}/stdio/slow/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(initializeRequest('stdio-bridge-test')),
      });
      expect(await answer.text()).toContain('slow-initialize');
      const conn = idle.stdio!.connections()[0]!;
      // In use until its answer went out, 600 ms after the request: idle from there. Counted from the request,
      // the process was stopped under the page's next message (notifications/initialized).
      expect(conn.lastUsed).toBeGreaterThanOrEqual(sentAt + 600);
      await waitFor(() => conn.child!.state.phase === 'exited', 10_000);
      expect(conn.child!.state).toMatchObject({ stoppedBy: 'no page used it for 300 ms' });
    } finally {
      await idle.close();
      await dir.remove();
    }
  });
});
