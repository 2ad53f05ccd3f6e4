import express from 'express';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listenOnLoopback, type Listening } from '../../src/devserver/http-server';
import { AuthClient } from '../../src/mcp/auth/auth-client';
import type { AuthView } from '../../src/mcp/auth/types';
import { HttpStatusError } from '../../src/mcp/errors';
import { openSession } from '../../src/mcp/open-session';
import { consent, startDemoAuth, type DemoAuthServer } from '../helpers/demo-auth';

const REDIRECT = 'http://127.0.0.1:5173/oauth/callback';

/** The JSON-RPC methods a fetch sent, in order (what reached the receiver's door). */
function countingFetch(methods: string[], statuses: number[] = []): typeof fetch {
  return async (input, init) => {
    if (typeof init?.body === 'string') {
      const body = JSON.parse(init.body) as { method?: string };
      if (body.method) methods.push(body.method);
    }
    const response = await fetch(input, init);
    // The POSTs only: the notification stream's GETs come and go on their own.
    if (typeof init?.body === 'string') statuses.push(response.status);
    return response;
  };
}

function nextView(auth: AuthClient, ...statuses: Array<AuthView['status']>): Promise<AuthView> {
  const now = auth.view();
  if (statuses.includes(now.status)) return Promise.resolve(now);
  return new Promise((resolve) => {
    auth.onChange = (view) => {
      if (statuses.includes(view.status)) resolve(view);
    };
  });
}

describe('signing in to the OAuth demo receiver', () => {
  let server: DemoAuthServer;
  beforeEach(async () => {
    server = await startDemoAuth();
  });
  afterEach(async () => {
    await server.close();
  });

  async function signIn(auth: AuthClient, methods: string[] = [], statuses: number[] = []) {
    const fetchFn = auth.wrap(countingFetch(methods, statuses));
    const refused = await openSession({ url: server.receiverUrl, fetch: fetchFn }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HttpStatusError);
    expect((refused as HttpStatusError).status).toBe(401);
    const ready = await nextView(auth, 'sign-in-needed');
    expect(await auth.finish(await consent(ready))).toBe(true);
    const opened = await openSession({ url: server.receiverUrl, fetch: fetchFn });
    return opened.session;
  }

  it('asks server/discover again after signing in, never initialize on the 401, and reads the steps', async () => {
    const methods: string[] = [];
    const auth = new AuthClient({ receiverUrl: server.receiverUrl, redirectUri: REDIRECT, fetch });
    const session = await signIn(auth, methods);
    // The 401 to server/discover is followed by no initialize; after sign-in the probe goes first again.
    expect(methods.slice(0, 2)).toEqual(['server/discover', 'server/discover']);
    expect(methods).toContain('initialize');
    const view = auth.view();
    expect(view.status).toBe('signed-in');
    expect(view.clientKind).toBe('dynamic');
    expect(view.issuer).toBe(`${server.url}/demo/auth`);
    expect(view.scopes).toEqual(['tools:run', 'offline_access']);
    expect(view.canRefresh).toBe(true);
    expect(view.steps.map((s) => s.kind)).toEqual([
      'challenge',
      'resource-metadata',
      'server-metadata',
      'client',
      'authorization',
      'callback',
      'token',
    ]);
    expect(view.steps.every((s) => s.ok)).toBe(true);
    // SEP-837: the page and its redirect are on loopback, so the registration says "native".
    expect(server.registrations).toEqual([
      expect.objectContaining({
        application_type: 'native',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    ]);
    // What the steps keep is redacted: no code, verifier or token in any exchange.
    const shown = JSON.stringify(view.steps);
    expect(shown).toContain('[redacted]');
    expect(shown).not.toMatch(/"access_token":"(?!\[redacted\])/);
    expect(shown).not.toMatch(/code_verifier=(?!\[redacted\])/);
    const tools = (await session.request('tools/list')) as { tools: Array<{ name: string }> };
    expect(tools.tools.map((t) => t.name)).toContain('slow_job');
    await session.close();
  });

  it('refreshes once on 401 invalid_token while several requests wait, and none is lost or doubled', async () => {
    const methods: string[] = [];
    const auth = new AuthClient({ receiverUrl: server.receiverUrl, redirectUri: REDIRECT, fetch });
    const session = await signIn(auth, methods);
    server.auth.provider.expireAccessTokens();
    const before = methods.length;
    const answers = await Promise.all([1, 2, 3].map(() => session.request('ping')));
    expect(answers).toHaveLength(3);
    const refreshes = auth.view().steps.filter((s) => s.kind === 'refresh');
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]!.ok).toBe(true);
    // Each ping went once with the dead token and once after the refresh: six at the door, three answered.
    expect(methods.slice(before).filter((m) => m === 'ping').length).toBeLessThanOrEqual(6);
    expect(auth.view().status).toBe('signed-in');
    await session.close();
  });

  it('refreshes ahead of expiry on its clock, so the request after it meets no 401', async () => {
    let clock = Date.now();
    const statuses: number[] = [];
    const auth = new AuthClient({
      receiverUrl: server.receiverUrl,
      redirectUri: REDIRECT,
      fetch,
      now: () => clock,
    });
    const session = await signIn(auth, [], statuses);
    const expiresAt = auth.view().expiresAt!;
    // 5 s before the end: inside the refresh margin, and the server still takes the old token.
    clock = expiresAt - 5_000;
    const before = statuses.length;
    await session.request('ping');
    expect(statuses.slice(before)).toEqual([200]);
    expect(auth.view().steps.filter((s) => s.kind === 'refresh')).toHaveLength(1);
    expect(auth.view().expiresAt).toBe(clock + 60_000);
    // Well before the margin nothing is refreshed.
    clock += 1_000;
    await session.request('ping');
    expect(auth.view().steps.filter((s) => s.kind === 'refresh')).toHaveLength(1);
    await session.close();
  });

  it('steps up once for the tool that needs more scope, and the call goes on', async () => {
    const auth = new AuthClient({ receiverUrl: server.receiverUrl, redirectUri: REDIRECT, fetch });
    const session = await signIn(auth);
    const call = session.request('tools/call', {
      name: 'flaky_job',
      arguments: { failAfterMs: 10, reason: 'test' },
      task: { ttl: 60_000 },
    });
    const asked = await nextView(auth, 'step-up-needed');
    expect(new URL(asked.authorizationUrl!).searchParams.get('scope')?.split(' ').sort()).toEqual([
      'offline_access',
      'tools:flaky',
      'tools:run',
    ]);
    // The 403 names tools:run tools:flaky; what the call lacks is tools:flaky alone.
    expect(asked.missingScopes).toEqual(['tools:flaky']);
    expect(asked.steps.find((s) => s.kind === 'step-up')!.summary).toBe(
      'HTTP 403 insufficient_scope: the request lacks tools:flaky; granted tools:run offline_access',
    );
    expect(await auth.finish(await consent(asked))).toBe(true);
    expect(auth.view().missingScopes).toBeUndefined();
    const created = (await call) as { task?: { taskId: string } };
    expect(created.task?.taskId).toBeTruthy();
    expect(auth.view().scopes).toContain('tools:flaky');
    await session.close();
  });

  it('signs in with the pre-registered client (client_secret_post)', async () => {
    const auth = new AuthClient({
      receiverUrl: server.receiverUrl,
      redirectUri: REDIRECT,
      fetch,
      choice: { clientId: 'taskscope-demo', clientSecret: 'demo-secret' },
    });
    const session = await signIn(auth);
    const view = auth.view();
    expect(view.clientKind).toBe('pre-registered');
    expect(view.clientId).toBe('taskscope-demo');
    const token = view.steps.find((s) => s.kind === 'token')!.exchanges[0]!;
    expect(token.requestBody).toContain('client_secret=[redacted]');
    // "Remember sign-in" keeps the tokens, never the person's client secret; a tab where the person entered
    // it again gets it back, and its refresh authenticates with it.
    const remembered = auth.remembered()!;
    expect(JSON.stringify(remembered)).not.toContain('demo-secret');
    const again = new AuthClient({
      receiverUrl: server.receiverUrl,
      redirectUri: REDIRECT,
      fetch,
      choice: { clientId: 'taskscope-demo', clientSecret: 'demo-secret' },
    });
    expect(again.restore(remembered)).toBe(true);
    expect(await again.refresh()).toBe(true);
    await session.close();
  });

  it('a sign-out while a refresh is under way stays signed out', async () => {
    let hold: (() => void) | undefined;
    const held = new Promise<void>((resolve) => (hold = resolve));
    let holding = false;
    let refreshSent!: () => void;
    const sent = new Promise<void>((resolve) => (refreshSent = resolve));
    // The flow's requests, with the refresh held at the door until the test lets it through.
    const gate: typeof fetch = async (input, init) => {
      if (holding && String(init?.body ?? '').includes('grant_type=refresh_token')) {
        refreshSent();
        await held;
      }
      return fetch(input, init);
    };
    const auth = new AuthClient({ receiverUrl: server.receiverUrl, redirectUri: REDIRECT, fetch: gate });
    const session = await signIn(auth);
    holding = true;
    const refreshed = auth.refresh();
    await sent;
    auth.signOut();
    hold!();
    expect(await refreshed).toBe(false);
    expect(auth.signedIn).toBe(false);
    expect(auth.view().status).toBe('none');
    expect(auth.remembered()).toBeUndefined();
    await session.close();
  });

  it("a refused registration shows the server's error and description, in the step and the message", async () => {
    server.refuseRegistrations({
      status: 400,
      body: {
        error: 'invalid_redirect_uri',
        error_description: 'Loopback redirect URIs need application_type native',
      },
    });
    const auth = new AuthClient({ receiverUrl: server.receiverUrl, redirectUri: REDIRECT, fetch });
    await openSession({ url: server.receiverUrl, fetch: auth.wrap(fetch) }).catch(() => undefined);
    const view = await nextView(auth, 'failed');
    const said =
      'The authorization server refused the registration (HTTP 400 invalid_redirect_uri: Loopback redirect URIs need application_type native)';
    expect(view.error).toBe(`${said} — RFC 7591 §3.2.2`);
    const step = view.steps.at(-1)!;
    expect(step).toMatchObject({
      kind: 'client',
      ok: false,
      summary: 'Registration refused: invalid_redirect_uri',
      why: said,
      spec: 'RFC 7591 §3.2.2',
    });
    expect(step.exchanges[0]?.status).toBe(400);
  });

  it('refuses a callback whose state or iss is not the one expected', async () => {
    const auth = new AuthClient({ receiverUrl: server.receiverUrl, redirectUri: REDIRECT, fetch });
    await openSession({ url: server.receiverUrl, fetch: auth.wrap(fetch) }).catch(() => undefined);
    const ready = await nextView(auth, 'sign-in-needed');
    const callback = await consent(ready);
    expect(await auth.finish({ ...callback, state: 'forged' })).toBe(false);
    expect(await auth.finish({ ...callback, iss: 'http://127.0.0.1:1/other' })).toBe(false);
    const view = auth.view();
    expect(view.status).toBe('failed');
    expect(view.error).toContain('RFC 9207');
  });
});

describe("the demo's auth faults (?faults=)", () => {
  let server: DemoAuthServer;
  beforeEach(async () => {
    server = await startDemoAuth();
  });
  afterEach(async () => {
    await server.close();
  });

  async function attempt(faults: string, choice?: { clientId: string; clientSecret: string }) {
    const url = `${server.receiverUrl}?faults=${faults}`;
    const auth = new AuthClient({ receiverUrl: url, redirectUri: REDIRECT, fetch, choice });
    await openSession({ url, fetch: auth.wrap(fetch) }).catch(() => undefined);
    return {
      auth,
      url,
      view: await nextView(auth, 'sign-in-needed', 'failed'),
    };
  }

  it('no-resource-metadata: the challenge names none, the well-known URL is found instead', async () => {
    const { view } = await attempt('no-resource-metadata');
    expect(view.status).toBe('sign-in-needed');
    const challenge = view.steps.find((s) => s.kind === 'challenge')!;
    expect(challenge.why).toContain('names no resource_metadata');
    expect(challenge.spec).toBe('RFC 9728 §5.1');
  });

  it('resource-mismatch: refused with the reason and RFC 9728 §3.3', async () => {
    const { view } = await attempt('resource-mismatch');
    expect(view.status).toBe('failed');
    expect(view.error).toContain("The metadata's resource https://elsewhere.example/mcp does not match");
    expect(view.error).toContain('RFC 9728 §3.3');
  });

  it('no-s256: refused before any registration', async () => {
    const { view } = await attempt('no-s256');
    expect(view.status).toBe('failed');
    expect(view.error).toContain('no code_challenge_methods_supported');
    expect(view.steps.some((s) => s.kind === 'client')).toBe(false);
  });

  it('issuer-mismatch: the callback is refused (RFC 9207)', async () => {
    const { auth, view } = await attempt('issuer-mismatch');
    expect(view.status).toBe('sign-in-needed');
    expect(await auth.finish(await consent(view))).toBe(false);
    expect(auth.view().error).toContain('RFC 9207');
  });

  it('other-origin: the authorization server under the other loopback name is asked about, then used', async () => {
    const url = `${server.receiverUrl}?faults=other-origin`;
    const auth = new AuthClient({ receiverUrl: url, redirectUri: REDIRECT, fetch });
    const asked = nextView(auth, 'confirm-origin');
    await openSession({ url, fetch: auth.wrap(fetch) }).catch(() => undefined);
    const other = server.url.replace('127.0.0.1', 'localhost');
    expect((await asked).confirmOrigin).toBe(other);
    auth.confirmOrigin(other, true);
    const view = await nextView(auth, 'sign-in-needed', 'failed');
    expect(view.issuer).toBe(`${other}/demo/auth/faults/other-origin`);
    expect(await auth.finish(await consent(view))).toBe(true);
    const { session } = await openSession({ url, fetch: auth.wrap(fetch) });
    await session.request('ping');
    await session.close();
  });

  it('basic-auth, registered dynamically: fails at once, naming the fault and its rules, with no credentials sent', async () => {
    const credentials = new Set<RequestCredentials | undefined>();
    const seen: typeof fetch = (input, init) => {
      credentials.add(init?.credentials);
      return fetch(input, init);
    };
    const url = `${server.receiverUrl}?faults=basic-auth`;
    const auth = new AuthClient({ receiverUrl: url, redirectUri: REDIRECT, fetch: seen });
    await openSession({ url, fetch: auth.wrap(fetch) }).catch(() => undefined);
    const ready = await nextView(auth, 'sign-in-needed', 'failed');
    const callback = await consent(ready);
    const started = Date.now();
    expect(await auth.finish(callback)).toBe(false);
    // The 401 is the answer: no deadline waited out (the flow's deadline is 10 s).
    expect(Date.now() - started).toBeLessThan(5_000);
    const view = auth.view();
    expect(view.status).toBe('failed');
    const step = view.steps.at(-1)!;
    expect(step.kind).toBe('token');
    expect(step.summary).toBe(
      'Client authentication refused (none): the server refuses the public client it registered',
    );
    expect(step.why).toContain(
      'registered Taskscope as a public client (token_endpoint_auth_method none, no secret), then its token endpoint refused that client (HTTP 401 invalid_client: This token endpoint takes client_secret_basic only); its metadata lists client_secret_basic only',
    );
    expect(step.spec).toBe('RFC 7591 §3.2.1, RFC 6749 §2.3.1');
    expect(view.error).toContain('— RFC 7591 §3.2.1, RFC 6749 §2.3.1');
    expect(step.exchanges.map((x) => x.status)).toEqual([401]);
    // A browser answers a credentialed 401 carrying WWW-Authenticate: Basic with its login prompt and holds
    // the fetch meanwhile: the flow's requests carry no credentials, so the 401 comes back as it was sent.
    expect([...credentials]).toEqual(['omit']);
  });

  it('basic-auth: the pre-registered client authenticates with client_secret_basic and signs in', async () => {
    const { auth, view, url } = await attempt('basic-auth', {
      clientId: 'taskscope-demo',
      clientSecret: 'demo-secret',
    });
    expect(await auth.finish(await consent(view))).toBe(true);
    const token = auth.view().steps.find((s) => s.kind === 'token')!.exchanges[0]!;
    expect(token.requestBody).not.toContain('client_secret');
    const { session } = await openSession({ url, fetch: auth.wrap(fetch) });
    await session.request('ping');
    await session.close();
  });
});

describe('authorization servers that break the rules', () => {
  let other: Listening;
  afterEach(async () => {
    await other.close();
  });

  it('refuses protected resource metadata whose resource is another receiver, with the reason', async () => {
    const app = express();
    app.post('/mcp', (req, res) => {
      res
        .status(401)
        .set(
          'WWW-Authenticate',
          `Bearer resource_metadata="http://${req.get('host')}/.well-known/oauth-protected-resource/mcp"`,
        )
        .end();
    });
    app.get('/.well-known/oauth-protected-resource/mcp', (_req, res) => {
      res.json({ resource: 'https://b.example/mcp', authorization_servers: ['https://as.example'] });
    });
    other = await listenOnLoopback(app, 0);
    const url = `${other.url}/mcp`;
    const auth = new AuthClient({ receiverUrl: url, redirectUri: REDIRECT, fetch });
    await openSession({ url, fetch: auth.wrap(fetch) }).catch(() => undefined);
    const view = await nextView(auth, 'failed');
    expect(view.error).toBe(
      `The metadata's resource https://b.example/mcp does not match this receiver ${url} — RFC 9728 §3.3`,
    );
    expect(view.steps.at(-1)!.kind).toBe('resource-metadata');
  });

  /**
   * A receiver that answers 401 and names itself as its authorization server, whose metadata has no
   * registration endpoint; `extra` adds to that metadata.
   */
  async function bareAuthServer(extra: Record<string, unknown>): Promise<string> {
    const app = express();
    app.post('/mcp', (_req, res) => {
      res.status(401).set('WWW-Authenticate', 'Bearer scope="read"').end();
    });
    app.get('/.well-known/oauth-protected-resource/mcp', (req, res) => {
      const origin = `http://${req.get('host')}`;
      res.json({ resource: `${origin}/mcp`, authorization_servers: [origin] });
    });
    app.get('/.well-known/oauth-authorization-server', (req, res) => {
      const origin = `http://${req.get('host')}`;
      res.json({
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        response_types_supported: ['code'],
        ...extra,
      });
    });
    other = await listenOnLoopback(app, 0);
    return `${other.url}/mcp`;
  }

  it('an authorization server with no registration endpoint asks for a client identity', async () => {
    const url = await bareAuthServer({ code_challenge_methods_supported: ['S256'] });
    const auth = new AuthClient({ receiverUrl: url, redirectUri: REDIRECT, fetch });
    await openSession({ url, fetch: auth.wrap(fetch) }).catch(() => undefined);
    const view = await nextView(auth, 'failed');
    expect(view.clientNeeded).toBe(true);
    expect(view.error).toContain('offers no dynamic registration: enter a pre-registered client id');
    // Asked again with a client entered, it goes on.
    const entered = new AuthClient({
      receiverUrl: url,
      redirectUri: REDIRECT,
      fetch,
      choice: { clientId: 'mine' },
    });
    await openSession({ url, fetch: entered.wrap(fetch) }).catch(() => undefined);
    const ready = await nextView(entered, 'sign-in-needed', 'failed');
    expect(ready.status).toBe('sign-in-needed');
    expect(ready.clientNeeded).toBeUndefined();
  });

  it('refuses an authorization server whose metadata does not list S256', async () => {
    const url = await bareAuthServer({});
    const auth = new AuthClient({ receiverUrl: url, redirectUri: REDIRECT, fetch });
    await openSession({ url, fetch: auth.wrap(fetch) }).catch(() => undefined);
    const view = await nextView(auth, 'failed');
    expect(view.error).toMatch(/no code_challenge_methods_supported.*PKCE/);
  });
});
