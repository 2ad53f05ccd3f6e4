import { afterEach, describe, expect, it } from 'vitest';
import type { AuthView, RememberedSignIn, ToolInfo } from '../../src/mcp';
import { consent, startDemoAuth, type DemoAuthServer } from '../helpers/demo-auth';
import { engineOverChannel } from '../helpers/engine-channel';
import { waitFor } from '../helpers/wait';

const settings = { paused: false, minPollIntervalMs: 0 };
const REDIRECT = 'http://127.0.0.1:5173/oauth/callback';
let server: DemoAuthServer | undefined;
let engine: ReturnType<typeof engineOverChannel> | undefined;

afterEach(async () => {
  await engine?.close();
  await server?.close();
  engine = server = undefined;
});

/** The latest sign-in view the engine sent the page. */
function lastAuth(e: NonNullable<typeof engine>): AuthView | undefined {
  return e.batches.findLast((b) => b.connection?.auth)?.connection?.auth;
}

describe('signing in through the engine', () => {
  it('a 401 on connect asks for a sign-in; the callback connects; the flow is sign-in traffic with no secret', async () => {
    server = await startDemoAuth();
    engine = engineOverChannel();
    const { bridge, batches } = engine;
    const refused = await bridge.request({
      type: 'connect',
      connectionId: 1,
      url: server.receiverUrl,
      headers: {},
      settings,
      auth: { redirectUri: REDIRECT },
    });
    expect(refused.ok).toBe(false);
    if (!refused.ok && !refused.stale) expect(refused.error.message).toContain('use Sign in');
    await waitFor(() => lastAuth(engine!)?.status === 'sign-in-needed', 10_000);
    const callback = await consent(lastAuth(engine)!);
    expect(await bridge.request({ type: 'authCallback', callback })).toBe(true);
    await waitFor(() => engine!.health()?.status === 'connected', 10_000);
    expect(lastAuth(engine)?.status).toBe('signed-in');

    const { tools } = await bridge.request({ type: 'listTools' });
    expect(tools.map((t) => t.name)).toContain('slow_job');

    const traffic = batches.flatMap((b) => b.traffic);
    const signIn = traffic.filter((e) => e.kind === 'auth');
    expect(signIn.map((e) => (e.message as { request: { url: string } }).request.url)).toEqual([
      `${server.url}/.well-known/oauth-protected-resource/demo/mcp-auth`,
      `${server.url}/.well-known/oauth-authorization-server/demo/auth`,
      `${server.url}/demo/auth/register`,
      `${server.url}/demo/auth/token`,
    ]);
    // Nothing the engine sent the page holds the code, or a token.
    const sent = JSON.stringify(batches);
    expect(sent).not.toContain(callback.code!);
    expect(sent).toContain('access_token\\":\\"[redacted]');

    await bridge.request({ type: 'signOut' });
    await waitFor(() => lastAuth(engine!)?.status === 'none', 5_000);
  });

  it('"Remember sign-in": the sign-in comes to the page to store, and a new engine (a reload) takes it up', async () => {
    server = await startDemoAuth();
    engine = engineOverChannel();
    const connect = (e: NonNullable<typeof engine>, remembered?: RememberedSignIn) =>
      e.bridge.request({
        type: 'connect',
        connectionId: 1,
        url: server!.receiverUrl,
        headers: {},
        settings,
        auth: { redirectUri: REDIRECT, remember: true, remembered },
      });
    await connect(engine);
    await waitFor(() => lastAuth(engine!)?.status === 'sign-in-needed', 10_000);
    await engine.bridge.request({ type: 'authCallback', callback: await consent(lastAuth(engine)!) });
    await waitFor(() => engine!.health()?.status === 'connected', 10_000);
    const stored = engine.batches.findLast((b) => b.connection?.rememberedSignIn)?.connection
      ?.rememberedSignIn;
    expect(stored?.receiverUrl).toBe(server.receiverUrl);
    expect(stored?.issuer).toBe(`${server.url}/demo/auth`);
    await engine.close();

    engine = engineOverChannel();
    const reconnected = await connect(engine, stored!);
    expect(reconnected.ok).toBe(true);
    expect(lastAuth(engine)?.status).toBe('signed-in');
    // Signing out tells the page to forget what it stored.
    await engine.bridge.request({ type: 'signOut' });
    await waitFor(() => engine!.batches.some((b) => b.connection?.rememberedSignIn === null), 5_000);
  });

  it('a same-tab round trip: the pending sign-in the page keeps is taken up by a new engine, which finishes it', async () => {
    server = await startDemoAuth();
    engine = engineOverChannel();
    const command = {
      type: 'connect' as const,
      connectionId: 1,
      url: server.receiverUrl,
      headers: {},
      settings,
      auth: { redirectUri: REDIRECT },
    };
    await engine.bridge.request(command);
    await waitFor(() => lastAuth(engine!)?.status === 'sign-in-needed', 10_000);
    const view = lastAuth(engine)!;
    const trip = await engine.bridge.request({ type: 'pendingSignIn' });
    expect(trip).toMatchObject({ receiverUrl: server.receiverUrl, pending: { state: view.state } });
    expect(JSON.stringify(trip)).not.toContain('access_token');
    const verifier = (trip!.pending as { codeVerifier: string }).codeVerifier;
    // The navigation ends the Worker: what it held is gone.
    await engine.close();

    const callback = await consent(view);
    engine = engineOverChannel();
    const reply = await engine.bridge.request({
      ...command,
      auth: { redirectUri: REDIRECT, returning: { trip: trip!, callback } },
    });
    expect(reply.ok).toBe(true);
    expect(lastAuth(engine)?.status).toBe('signed-in');
    // The steps from before the trip are shown with the ones after it.
    const kinds = lastAuth(engine)!.steps.map((s) => s.kind);
    expect(kinds.slice(0, 2)).toEqual(['challenge', 'resource-metadata']);
    expect(kinds.slice(-2)).toEqual(['callback', 'token']);
    const sent = JSON.stringify(engine.batches);
    expect(sent).not.toContain(verifier);
    expect(sent).not.toContain(callback.code!);
    // Used once: nothing waits for a callback any more.
    expect(await engine.bridge.request({ type: 'pendingSignIn' })).toBeNull();
  });
});

/**
 * Sign-in steps a person takes part in, through the engine's message boundary as the page drives them: an
 * authorization server on another origin refused, tried again and allowed; a tool that needs more scope, signed
 * in again while its call waits. (AuthClient alone: auth-flow.test.ts and auth-layouts.test.ts; the card's
 * buttons: src/receiver/AuthSection.test.tsx; the popup itself: test/e2e/sign-in.spec.ts.)
 */
const signInUrls = (e: NonNullable<typeof engine>) =>
  e.batches
    .flatMap((b) => b.traffic)
    .filter((t) => t.kind === 'auth')
    .map((t) => (t.message as { request: { url: string } }).request.url);

/** Connects; the reply is left to come (a connect waiting for the person's answer about an origin holds it). */
function connect(url: string) {
  engine = engineOverChannel();
  void engine.bridge.request({
    type: 'connect',
    connectionId: 1,
    url,
    headers: {},
    settings,
    auth: { redirectUri: REDIRECT },
  });
  return engine;
}

describe('sign-in steps through the engine', () => {
  it('an authorization server on another origin: not allowed, nothing goes there and the sign-in fails saying so; tried again and allowed, it is used', async () => {
    server = await startDemoAuth();
    const other = server.url.replace('127.0.0.1', 'localhost');
    const e = connect(`${server.receiverUrl}?faults=other-origin`);
    await waitFor(() => lastAuth(e)?.status === 'confirm-origin', 10_000);
    expect(lastAuth(e)?.confirmOrigin).toBe(other);
    expect(signInUrls(e).filter((u) => u.startsWith(other))).toEqual([]);

    await e.bridge.request({ type: 'confirmOrigin', origin: other, allow: false });
    await waitFor(() => lastAuth(e)?.status === 'failed', 10_000);
    expect(lastAuth(e)?.error).toContain(`${other}, named by the receiver's metadata, was not allowed`);
    expect(signInUrls(e).filter((u) => u.startsWith(other))).toEqual([]);

    // Try again: asked once more, and allowed this time, the sign-in goes on there.
    // Its reply comes once the flow is ready for the popup: after the origin is answered.
    const again = e.bridge.request({ type: 'signIn' });
    await waitFor(() => lastAuth(e)?.status === 'confirm-origin', 10_000);
    await e.bridge.request({ type: 'confirmOrigin', origin: other, allow: true });
    await again;
    await waitFor(() => lastAuth(e)?.status === 'sign-in-needed', 10_000);
    expect(lastAuth(e)?.issuer).toBe(`${other}/demo/auth/faults/other-origin`);
    expect(signInUrls(e).some((u) => u.startsWith(other))).toBe(true);
    expect(await e.bridge.request({ type: 'authCallback', callback: await consent(lastAuth(e)!) })).toBe(
      true,
    );
    await waitFor(() => e.health()?.status === 'connected', 10_000);
    expect(lastAuth(e)?.status).toBe('signed-in');
  }, 30_000);

  it('a token endpoint that takes client_secret_basic only, with the client registered as public: the sign-in fails at its 401, saying why', async () => {
    server = await startDemoAuth();
    const e = connect(`${server.receiverUrl}?faults=basic-auth`);
    await waitFor(() => lastAuth(e)?.status === 'sign-in-needed', 10_000);
    const callback = await consent(lastAuth(e)!);
    expect(await e.bridge.request({ type: 'authCallback', callback })).toBe(false);
    const failed = lastAuth(e)!;
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(
      /registered Taskscope as a public client .*\(HTTP 401 invalid_client: This token endpoint takes client_secret_basic only.* — RFC 7591 §3\.2\.1, RFC 6749 §2\.3\.1$/,
    );
    // The sign-in traffic has the 401 as it came, not a request given up.
    const token = e.batches
      .flatMap((b) => b.traffic)
      .filter((t) => t.kind === 'auth')
      .map((t) => t.message as { request: { url: string }; response: { status?: number; error?: string } })
      .find((m) => m.request.url.endsWith('/token'));
    expect(token?.response).toMatchObject({ status: 401 });
    expect(token?.response.error).toBeUndefined();
  });

  it('a tool that needs more scope: the run waits while the person signs in again for the union of scopes, then goes on to its result', async () => {
    server = await startDemoAuth();
    const e = connect(server.receiverUrl);
    await waitFor(() => lastAuth(e)?.status === 'sign-in-needed', 10_000);
    await e.bridge.request({ type: 'authCallback', callback: await consent(lastAuth(e)!) });
    await waitFor(() => e.health()?.status === 'connected', 10_000);
    expect(lastAuth(e)?.scopes).toEqual(['tools:run', 'offline_access']);

    const { tools } = await e.bridge.request({ type: 'listTools' });
    const flaky = tools.find((t) => t.name === 'flaky_job') as ToolInfo;
    const running = e.bridge.request({
      type: 'run',
      tool: flaky,
      args: { failAfterMs: 300, reason: 'scoped' },
    });
    await waitFor(() => lastAuth(e)?.status === 'step-up-needed', 10_000);
    const asked = lastAuth(e)!;
    // What was granted and what the 403 asked for; the page is told what the run lacks.
    expect(new URL(asked.authorizationUrl!).searchParams.get('scope')?.split(' ').sort()).toEqual([
      'offline_access',
      'tools:flaky',
      'tools:run',
    ]);
    expect(asked.missingScopes).toEqual(['tools:flaky']);
    await e.bridge.request({ type: 'authCallback', callback: await consent(asked) });
    const run = await running;
    if (!run.ok || run.taskId === undefined) throw new Error('no task');
    expect(lastAuth(e)?.scopes).toContain('tools:flaky');
    const taskId = run.taskId;
    await waitFor(() => e.tasks.getState().tasks.get(taskId)?.result.state === 'fetched', 10_000);
    expect(e.tasks.getState().tasks.get(taskId)?.status).toBe('failed');
    const result = e.batches.flatMap((b) => b.results).find(([id]) => id === taskId)?.[1];
    expect(JSON.stringify(result)).toContain('flaky_job failed: scoped');
  }, 30_000);
});
