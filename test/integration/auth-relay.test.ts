import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type StartedApp } from '../../src/devserver/start';
import type { ToolInfo } from '../../src/mcp';
import type { AuthView } from '../../src/mcp/auth/types';
import { RELAY_HEADERS } from '../../src/mcp/relay-fetch';
import { stopAfterEach } from '../helpers/cleanups';
import { consent, startCorslessDemoAuth } from '../helpers/demo-auth';
import { engineOverChannel } from '../helpers/engine-channel';
import { makeStubDist } from '../helpers/stub-dist';
import { waitFor } from '../helpers/wait';

/**
 * A receiver and its authorization server that send no CORS headers, on a loopback port of their own, reached
 * through `npm start`'s relay: the engine's every request (MCP and sign-in) goes to /relay, which forwards it.
 */
const settings = { paused: false, minPollIntervalMs: 0 };
const later = stopAfterEach();
let app: StartedApp;
let removeDist: () => Promise<void>;

beforeAll(async () => {
  const dist = await makeStubDist();
  removeDist = dist.remove;
  app = await startApp({ port: 0, staticDir: dist.dir });
});
afterAll(async () => {
  await app.close();
  await removeDist();
});

async function startCorslessAuth() {
  const upstream = await startCorslessDemoAuth();
  later(upstream.close);
  return upstream;
}

/** Every request the engine made, as the fetch under the relay saw it: where it went and what it named. */
function recordingFetch(sent: Array<{ url: string; target: string | null }>): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    sent.push({ url, target: new Headers(init?.headers).get(RELAY_HEADERS.target) });
    return fetch(input, init);
  };
}

function lastAuth(batches: ReturnType<typeof engineOverChannel>['batches']): AuthView | undefined {
  return batches.findLast((b) => b.connection?.auth)?.connection?.auth;
}

describe('signing in through the relay, to servers without CORS', () => {
  it('discovery, registration and the token go through /relay; a task runs to its result', async () => {
    const upstream = await startCorslessAuth();
    const sent: Array<{ url: string; target: string | null }> = [];
    const e = engineOverChannel({ fetch: recordingFetch(sent), history: async () => null });
    later(() => e.close());
    const relay = { url: `${app.url}/relay`, token: app.relayToken };
    const refused = await e.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: upstream.receiverUrl,
      headers: {},
      settings,
      relay,
      auth: { redirectUri: `${app.url}/oauth/callback` },
    });
    expect(refused.ok).toBe(false);
    await waitFor(() => lastAuth(e.batches)?.status === 'sign-in-needed', 10_000);
    const view = lastAuth(e.batches)!;
    // The authorization page is the person's browser's business (a popup), never the relay's.
    expect(view.authorizationUrl).toMatch(new RegExp(`^${upstream.url}/as/authorize\\?`));
    expect(await e.bridge.request({ type: 'authCallback', callback: await consent(view) })).toBe(true);
    await waitFor(() => e.health()?.status === 'connected', 10_000);

    const { tools } = await e.bridge.request({ type: 'listTools' });
    const tool = tools.find((t) => t.name === 'slow_job') as ToolInfo;
    const run = await e.bridge.request({
      type: 'run',
      tool,
      args: { durationMs: 400, steps: 2, pollIntervalMs: 100 },
    });
    if (!run.ok || run.taskId === undefined) throw new Error('the task did not start');
    await waitFor(() => e.tasks.getState().tasks.get(run.taskId!)?.result.state === 'fetched', 10_000);
    expect(e.tasks.getState().tasks.get(run.taskId)?.status).toBe('completed');

    // Nothing went to the servers directly: every request went to the relay, naming them.
    expect(sent.length).toBeGreaterThan(5);
    for (const request of sent) expect(request.url).toBe(relay.url);
    const targets = sent.map((s) => new URL(s.target!).pathname);
    expect(targets).toEqual(
      expect.arrayContaining([
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/oauth-authorization-server/as',
        '/as/register',
        '/as/token',
        '/mcp',
      ]),
    );
    // The servers saw the sign-in's requests and the MCP ones with the token the relay passed on.
    expect(
      upstream.arrivals.filter((a) => a.path === '/mcp' && a.method === 'POST' && a.authorization).length,
    ).toBeGreaterThan(2);
    // The 401's challenge crossed the relay: it is what sent the flow to the metadata.
    expect(lastAuth(e.batches)?.steps.map((s) => s.kind)).toContain('challenge');
    expect(lastAuth(e.batches)?.status).toBe('signed-in');
  }, 30_000);

  it('a pre-registered client with client_secret_basic: its Authorization header crosses the relay to the token endpoint', async () => {
    const upstream = await startCorslessAuth();
    const sent: Array<{ url: string; target: string | null }> = [];
    const e = engineOverChannel({ fetch: recordingFetch(sent), history: async () => null });
    later(() => e.close());
    await e.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: `${upstream.receiverUrl}?faults=basic-auth`,
      headers: {},
      settings,
      relay: { url: `${app.url}/relay`, token: app.relayToken },
      auth: {
        redirectUri: `${app.url}/oauth/callback`,
        choice: { clientId: 'taskscope-demo', clientSecret: 'demo-secret' },
      },
    });
    await waitFor(() => lastAuth(e.batches)?.status === 'sign-in-needed', 10_000);
    expect(
      await e.bridge.request({ type: 'authCallback', callback: await consent(lastAuth(e.batches)!) }),
    ).toBe(true);
    await waitFor(() => e.health()?.status === 'connected', 10_000);
    expect(lastAuth(e.batches)).toMatchObject({ status: 'signed-in', clientKind: 'pre-registered' });
    const token = upstream.arrivals.filter((a) => a.path.endsWith('/token'));
    expect(token).toEqual([{ method: 'POST', path: '/as/faults/basic-auth/token', authorization: true }]);
    expect(sent.every((s) => s.url === `${app.url}/relay`)).toBe(true);
    // The secret went in a header the relay forwards, never into what the page was sent.
    expect(JSON.stringify(e.batches)).not.toContain('demo-secret');
  }, 30_000);
});
