import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthView } from '../../src/mcp';
import { startApp, type StartedApp } from '../../src/devserver/start';
import { startHostileReceiver, type HostileReceiver } from '../servers/hostile/receiver';
import { connectedEngine, engineOverChannel, TEST_SETTINGS } from '../helpers/engine-channel';
import { consent, startDemoAuth } from '../helpers/demo-auth';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { makeStubDist } from '../helpers/stub-dist';
import { everythingCommand, newRoute } from '../helpers/stdio';
import { waitFor } from '../helpers/wait';

/**
 * What the engine says of a connection that stops where only the person can move it on: the stdio server's
 * process ended, a sign-out, a 401 from a receiver that offers sign-in; and a refusal in the receiver's own
 * words. src/app/connection-state.test.tsx holds how the page draws each of these.
 */
const later = stopAfterEach();
const REDIRECT = 'http://127.0.0.1:5173/oauth/callback';

let app: StartedApp;
let dist: { dir: string; remove: () => Promise<void> };
let hostile: HostileReceiver;
beforeAll(async () => {
  dist = await makeStubDist();
  app = await startApp({
    port: 0,
    staticDir: dist.dir,
    stdio: { receivers: [{ name: 'everything', command: everythingCommand() }], maxChildren: 2 },
  });
  hostile = await startHostileReceiver();
});
afterAll(async () => {
  await app?.close();
  await dist?.remove();
  await hostile?.close();
});

const lastAuth = (e: ReturnType<typeof engineOverChannel>): AuthView | undefined =>
  e.batches.findLast((b) => b.connection?.auth)?.connection?.auth;

describe('the connection state the engine reports', () => {
  it('a stdio server killed from outside: server exited, in the bridge’s words, and its live task ends with it', async () => {
    const route = newRoute(app.relayToken);
    const engine = engineOverChannel({ history: async () => null });
    later(engine.close);
    const connect = {
      type: 'connect' as const,
      connectionId: 1,
      url: `${app.url}/stdio/everything/mcp`,
      headers: {},
      settings: TEST_SETTINGS,
      stdio: route,
    };
    const reply = await engine.bridge.request(connect);
    expect(reply.ok).toBe(true);
    const { tools } = await engine.bridge.request({ type: 'listTools' });
    const research = tools.find((t) => t.name === 'simulate-research-query')!;
    const run = await engine.bridge.request({
      type: 'run',
      tool: research,
      args: { topic: 'tides', ambiguous: true },
    });
    if (!('taskId' in run) || !run.taskId) throw new Error(`no task: ${JSON.stringify(run)}`);
    const conn = app.stdio!.connections().find((c) => c.id === route.connection)!;
    process.kill(conn.child!.pid!, 'SIGKILL');

    // No request of the person's is needed: the closed stream's reopening meets the bridge's 410.
    await waitFor(() => engine.health()?.reason === 'server-exited', 15_000);
    expect(engine.health()).toMatchObject({
      status: 'error',
      error: { message: expect.stringContaining('The stdio server was ended by SIGKILL') },
    });
    // The task's session was the process: it is over, neither live nor polled.
    await waitFor(() => engine.tasks.getState().tasks.get(run.taskId)?.lifecycle === 'session-ended', 5_000);
    // Connecting again over the same page connection meets the same ended process: still "exited", not a
    // refusal to puzzle over (Restart is a new page connection).
    await engine.bridge.request({ ...connect, connectionId: 2 });
    expect(engine.health()).toMatchObject({ status: 'error', reason: 'server-exited' });
  }, 30_000);

  it('a protected receiver opens on "sign in", and after Sign out the connection waits for a sign-in again', async () => {
    const server = await startDemoAuth();
    later(server.close);
    const engine = engineOverChannel({ history: async () => null });
    later(engine.close);
    const connect = {
      type: 'connect' as const,
      connectionId: 1,
      url: server.receiverUrl,
      headers: {},
      settings: TEST_SETTINGS,
      auth: { redirectUri: REDIRECT },
    };
    await engine.bridge.request(connect);
    expect(engine.health()).toMatchObject({
      status: 'error',
      reason: 'sign-in-needed',
      error: { kind: 'auth', message: expect.stringContaining('sign in') },
    });
    expect(engine.health()?.error?.message).not.toMatch(/Authorization header/);
    await waitFor(() => lastAuth(engine)?.status === 'sign-in-needed', 10_000);
    await engine.bridge.request({ type: 'authCallback', callback: await consent(lastAuth(engine)!) });
    await waitFor(() => engine.health()?.status === 'connected', 10_000);

    await engine.bridge.request({ type: 'signOut' });
    await waitFor(() => engine.health()?.reason === 'sign-in-needed', 5_000);
    expect(engine.health()?.status).toBe('error');
  });

  it('a 401 on a connected session of a receiver that offers sign-in: sign-in needed, never "add a header"', async () => {
    const server = await startDemoAuth();
    later(server.close);
    const engine = engineOverChannel({ history: async () => null });
    later(engine.close);
    await engine.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: server.receiverUrl,
      headers: {},
      settings: TEST_SETTINGS,
      auth: { redirectUri: REDIRECT },
    });
    await waitFor(() => lastAuth(engine)?.status === 'sign-in-needed', 10_000);
    await engine.bridge.request({ type: 'authCallback', callback: await consent(lastAuth(engine)!) });
    await waitFor(() => engine.health()?.status === 'connected', 10_000);
    const { tools } = await engine.bridge.request({ type: 'listTools' });
    // The tokens the receiver knows go (as when an authorization server restarts): the next call gets a 401.
    const issued = server.auth.provider as unknown as Record<'access' | 'refresh', Map<string, unknown>>;
    issued.access.clear();
    issued.refresh.clear();
    const run = await engine.bridge.request({
      type: 'run',
      tool: tools.find((t) => t.name === 'slow_job')!,
      args: { durationMs: 200 },
    });
    expect(run.ok).toBe(false);
    if (!run.ok) expect(run.error.message).not.toMatch(/Authorization header/);
    await waitFor(() => engine.health()?.reason === 'sign-in-needed', 10_000);
    expect(engine.health()?.error?.message).toMatch(/sign in/);
  });

  it('a receiver that refuses the connection in its own words: the message whole, not an excerpt', async () => {
    const engine = engineOverChannel({ history: async () => null });
    later(engine.close);
    const reply = await engine.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: `${hostile.url}/faults/mcp?faults=bogus`,
      headers: {},
      settings: TEST_SETTINGS,
    });
    expect(reply.ok).toBe(false);
    expect(engine.health()).toMatchObject({ status: 'error' });
    expect(engine.health()?.error?.message).toMatch(/Unknown faults: bogus$/);
  });
});

// Kept for the helpers' other users: a plain demo connection still reads connected.
it('a healthy receiver reads connected, with no reason', async () => {
  const demo = await demoFor(later);
  const engine = await connectedEngine(demo.url, later);
  expect(engine.health()).toMatchObject({ status: 'connected' });
  expect(engine.health()?.reason).toBeUndefined();
});
