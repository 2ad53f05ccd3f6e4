import { createHash, randomBytes } from 'node:crypto';
import express, { type Request } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { listenOnLoopback, type Listening } from '../../src/devserver/http-server';
import { AuthClient, MAX_STEP_UPS } from '../../src/mcp/auth/auth-client';
import type { AuthClientChoice, AuthView } from '../../src/mcp/auth/types';

const REDIRECT = 'http://127.0.0.1:5173/oauth/callback';

type Layout = 'challenge-url' | 'path-aware' | 'root' | 'oidc-only' | '2025-03-26';

/**
 * A second authorization server, written here, that publishes its metadata in one of the layouts the spec
 * allows. The receiver is at /mcp, the issuer at /tenant (except for 2025-03-26, which has neither document
 * and serves /authorize, /token and /register on its root). /authorize answers at once with a code (no person).
 */
async function startLayout(
  layout: Layout,
  scopesSupported?: string[],
  {
    insufficient = false,
    cimd = false,
    authorizationServer,
  }: {
    insufficient?: boolean;
    cimd?: boolean;
    /** Another origin's issuer that the resource metadata names instead of this server's own. */
    authorizationServer?: string;
  } = {},
): Promise<Listening & { seen: string[]; clientIds: string[] }> {
  const app = express();
  const seen: string[] = [];
  /** The client_id each authorization and token request named. */
  const clientIds: string[] = [];
  const origin = (req: Request) => `http://${req.get('host')}`;
  const asBase = (req: Request) => (layout === '2025-03-26' ? origin(req) : `${origin(req)}/tenant`);
  const codes = new Map<string, string>();
  const tokens = new Set<string>();
  app.use((req, _res, next) => {
    seen.push(`${req.method} ${req.path}`);
    next();
  });
  app.post('/mcp', (req, res) => {
    const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    // insufficient: a receiver that asks for more scope whatever it was granted.
    if (token && tokens.has(token) && insufficient)
      return res
        .status(403)
        .set('WWW-Authenticate', 'Bearer error="insufficient_scope", scope="admin"')
        .end();
    if (token && tokens.has(token)) return res.json({ jsonrpc: '2.0', id: 1, result: {} });
    const prm = `${origin(req)}/custom/prm.json`;
    res
      .status(401)
      .set('WWW-Authenticate', layout === 'challenge-url' ? `Bearer resource_metadata="${prm}"` : 'Bearer')
      .end();
  });
  const prm = (req: Request) => ({
    resource: `${origin(req)}/mcp`,
    authorization_servers: [authorizationServer ?? asBase(req)],
    ...(scopesSupported ? { scopes_supported: scopesSupported } : {}),
  });
  if (layout === 'challenge-url') app.get('/custom/prm.json', (req, res) => res.json(prm(req)));
  if (layout === 'path-aware' || layout === 'oidc-only')
    app.get('/.well-known/oauth-protected-resource/mcp', (req, res) => res.json(prm(req)));
  if (layout === 'root') app.get('/.well-known/oauth-protected-resource', (req, res) => res.json(prm(req)));
  const metadata = (req: Request) => ({
    issuer: asBase(req),
    authorization_endpoint: `${asBase(req)}/authorize`,
    token_endpoint: `${asBase(req)}/token`,
    registration_endpoint: `${asBase(req)}/register`,
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    ...(cimd ? { client_id_metadata_document_supported: true } : {}),
    ...(layout === 'oidc-only'
      ? {
          jwks_uri: `${asBase(req)}/jwks`,
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
        }
      : {}),
  });
  if (layout === 'oidc-only')
    app.get('/tenant/.well-known/openid-configuration', (req, res) => res.json(metadata(req)));
  else if (layout !== '2025-03-26')
    app.get('/.well-known/oauth-authorization-server/tenant', (req, res) => res.json(metadata(req)));
  const prefix = layout === '2025-03-26' ? '' : '/tenant';
  app.post(`${prefix}/register`, express.json(), (_req, res) => {
    res
      .status(201)
      .json({ client_id: `client-${randomBytes(4).toString('hex')}`, redirect_uris: [REDIRECT] });
  });
  app.get(`${prefix}/authorize`, (req, res) => {
    clientIds.push(`authorize ${String(req.query.client_id)}`);
    const code = randomBytes(8).toString('hex');
    codes.set(code, String(req.query.code_challenge));
    const back = new URL(String(req.query.redirect_uri));
    back.searchParams.set('code', code);
    back.searchParams.set('state', String(req.query.state));
    res.redirect(302, back.href);
  });
  app.post(`${prefix}/token`, express.urlencoded({ extended: false }), (req, res) => {
    const body = req.body as Record<string, string>;
    clientIds.push(`token ${body.client_id}`);
    const challenge = codes.get(body.code ?? '');
    const computed = createHash('sha256')
      .update(body.code_verifier ?? '')
      .digest('base64url');
    if (!challenge || challenge !== computed) return res.status(400).json({ error: 'invalid_grant' });
    const token = randomBytes(8).toString('hex');
    tokens.add(token);
    res.json({ access_token: token, token_type: 'Bearer', expires_in: 3600 });
  });
  const listening = await listenOnLoopback(app, 0);
  return { ...listening, seen, clientIds };
}

function settled(auth: AuthClient): Promise<AuthView> {
  const now = auth.view();
  if (now.status === 'sign-in-needed' || now.status === 'failed') return Promise.resolve(now);
  return new Promise((resolve) => {
    auth.onChange = (view) => {
      if (view.status === 'sign-in-needed' || view.status === 'failed') resolve(view);
    };
  });
}

/** The person at the authorization page: this server answers at once, so following its redirect is the callback. */
async function authorize(auth: AuthClient, view: AuthView): Promise<boolean> {
  const answer = await fetch(view.authorizationUrl!, { redirect: 'manual' });
  const back = new URL(answer.headers.get('location')!);
  return auth.finish({ state: back.searchParams.get('state')!, code: back.searchParams.get('code')! });
}

const PING = { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' };

async function signInAt(
  server: Listening,
  { check = true, choice }: { check?: boolean; choice?: AuthClientChoice } = {},
): Promise<{ auth: AuthClient; view: AuthView; authorizationUrl: URL; call: () => Promise<Response> }> {
  const url = `${server.url}/mcp`;
  const auth = new AuthClient({ receiverUrl: url, redirectUri: REDIRECT, fetch, choice });
  const post = auth.wrap(fetch);
  const call = () => post(url, PING);
  expect((await call()).status).toBe(401);
  const view = await settled(auth);
  if (view.status !== 'sign-in-needed') throw new Error(`${view.status}: ${view.error}`);
  const authorizationUrl = new URL(view.authorizationUrl!);
  expect(await authorize(auth, view), auth.view().error).toBe(true);
  if (check) expect((await call()).status).toBe(200);
  return { auth, view: auth.view(), authorizationUrl, call };
}

describe('metadata layouts', () => {
  let server: Listening & { seen: string[]; clientIds: string[] };
  afterEach(async () => {
    await server.close();
  });

  it('challenge URL only: the resource metadata the challenge names', async () => {
    server = await startLayout('challenge-url');
    await signInAt(server);
    expect(server.seen).toContain('GET /custom/prm.json');
    expect(server.seen).not.toContain('GET /.well-known/oauth-protected-resource/mcp');
  });

  it('path-aware well-known, and the issuer with a path at its path-inserted metadata', async () => {
    server = await startLayout('path-aware');
    const { view } = await signInAt(server);
    expect(server.seen).toContain('GET /.well-known/oauth-protected-resource/mcp');
    expect(server.seen).toContain('GET /.well-known/oauth-authorization-server/tenant');
    expect(view.issuer).toBe(`${server.url}/tenant`);
    expect(view.clientKind).toBe('dynamic');
  });

  it('root well-known after the path-aware one is missing', async () => {
    server = await startLayout('root');
    await signInAt(server);
    const prm = server.seen.filter((s) => s.includes('oauth-protected-resource'));
    expect(prm).toEqual([
      'GET /.well-known/oauth-protected-resource/mcp',
      'GET /.well-known/oauth-protected-resource',
    ]);
  });

  it('OpenID Connect discovery only: path-appended, after the OAuth and the path-inserted OIDC forms', async () => {
    server = await startLayout('oidc-only');
    await signInAt(server);
    const tried = server.seen.filter(
      (s) => s.includes('-configuration') || s.includes('authorization-server'),
    );
    expect(tried).toEqual([
      'GET /.well-known/oauth-authorization-server/tenant',
      'GET /.well-known/openid-configuration/tenant',
      'GET /tenant/.well-known/openid-configuration',
    ]);
  });

  it('2025-03-26: no metadata at all, the root and its default endpoints', async () => {
    server = await startLayout('2025-03-26');
    const { view } = await signInAt(server);
    expect(server.seen).toContain('POST /register');
    expect(server.seen).toContain('POST /token');
    expect(view.steps.find((s) => s.kind === 'resource-metadata')?.ok).toBe(false);
    expect(view.steps.find((s) => s.kind === 'server-metadata')?.summary).toContain(
      '/authorize, /token and /register',
    );
  });

  it('scope from scopes_supported when the challenge names none, and none at all when neither does', async () => {
    server = await startLayout('path-aware', ['files:read', 'files:write']);
    const first = await signInAt(server);
    expect(first.authorizationUrl.searchParams.get('scope')).toBe('files:read files:write');
    await server.close();
    server = await startLayout('path-aware');
    const second = await signInAt(server);
    expect(second.authorizationUrl.searchParams.has('scope')).toBe(false);
    // resource (RFC 8707), PKCE S256 and state are always there.
    expect(second.authorizationUrl.searchParams.get('resource')).toBe(`${server.url}/mcp`);
    expect(second.authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(second.authorizationUrl.searchParams.get('state')).toBeTruthy();
  });

  it('step-up: once per request, and given up after the limit when the receiver keeps asking', async () => {
    server = await startLayout('path-aware', undefined, { insufficient: true });
    const { auth, call } = await signInAt(server, { check: false });
    for (let round = 1; round <= MAX_STEP_UPS; round++) {
      const waiting = call();
      const asked = await new Promise<AuthView>((resolve) => {
        auth.onChange = (view) => {
          if (view.status === 'step-up-needed') resolve(view);
        };
      });
      // The union of what was granted and what is asked for.
      expect(new URL(asked.authorizationUrl!).searchParams.get('scope')).toBe('admin');
      expect(await authorize(auth, asked)).toBe(true);
      // Asked again after the step-up: this request goes on with the 403, no second step-up for it.
      expect((await waiting).status).toBe(403);
    }
    expect((await call()).status).toBe(403);
    const view = auth.view();
    expect(view.status).toBe('failed');
    expect(view.error).toContain(`after ${MAX_STEP_UPS} step-ups`);
    expect(view.steps.filter((s) => s.kind === 'step-up' && s.ok)).toHaveLength(MAX_STEP_UPS);
  });
});

describe('Client ID Metadata Documents', () => {
  let server: Listening & { seen: string[]; clientIds: string[] };
  afterEach(async () => {
    await server.close();
  });
  const DOCUMENT = 'https://taskscope.example/oauth/client.json';

  it('a server that supports them gets the https URL the person entered as client_id, and no registration', async () => {
    server = await startLayout('path-aware', undefined, { cimd: true });
    const { view, authorizationUrl } = await signInAt(server, { choice: { clientMetadataUrl: DOCUMENT } });
    expect(authorizationUrl.searchParams.get('client_id')).toBe(DOCUMENT);
    expect(server.clientIds).toEqual([`authorize ${DOCUMENT}`, `token ${DOCUMENT}`]);
    expect(server.seen).not.toContain('POST /tenant/register');
    expect(view).toMatchObject({ status: 'signed-in', clientKind: 'metadata-document', clientId: DOCUMENT });
    expect(view.steps.find((s) => s.kind === 'client')?.spec).toBe(
      'MCP authorization, Client ID Metadata Documents',
    );
  });

  it('a server that does not: dynamic registration, and the step says why', async () => {
    server = await startLayout('path-aware');
    const { view } = await signInAt(server, { choice: { clientMetadataUrl: DOCUMENT } });
    expect(server.seen).toContain('POST /tenant/register');
    expect(view.clientKind).toBe('dynamic');
    expect(view.steps.find((s) => s.kind === 'client')?.summary).toContain(
      'does not support Client ID Metadata Documents',
    );
  });

  it('a client id that is not an https URL with a path is refused before the person is sent anywhere', async () => {
    server = await startLayout('path-aware', undefined, { cimd: true });
    const url = `${server.url}/mcp`;
    const auth = new AuthClient({
      receiverUrl: url,
      redirectUri: REDIRECT,
      fetch,
      choice: { clientMetadataUrl: 'http://taskscope.example/client.json' },
    });
    expect((await auth.wrap(fetch)(url, PING)).status).toBe(401);
    const view = await settled(auth);
    expect(view.status).toBe('failed');
    expect(view.error).toContain('not an https URL with a path');
    expect(view.authorizationUrl).toBeUndefined();
    expect(server.clientIds).toEqual([]);
  });
});

describe('origins the receiver names: confirmed by the person before the flow contacts them', () => {
  const started: Listening[] = [];
  afterEach(async () => {
    for (const server of started.splice(0)) await server.close();
  });

  async function twoOrigins() {
    const issuer = await startLayout('path-aware');
    started.push(issuer);
    const receiver = await startLayout('path-aware', undefined, {
      authorizationServer: `${issuer.url}/tenant`,
    });
    started.push(receiver);
    const url = `${receiver.url}/mcp`;
    const auth = new AuthClient({ receiverUrl: url, redirectUri: REDIRECT, fetch });
    const asked = new Promise<AuthView>((resolve) => {
      auth.onChange = (view) => {
        if (view.status === 'confirm-origin') resolve(view);
      };
    });
    expect((await auth.wrap(fetch)(url, PING)).status).toBe(401);
    return { issuer, receiver, auth, view: await asked };
  }

  it('the flow stops before the first request to another origin, and goes on once it is allowed', async () => {
    const { issuer, receiver, auth, view } = await twoOrigins();
    expect(view.confirmOrigin).toBe(issuer.url);
    // The receiver's own metadata was read; nothing went to the other origin yet.
    expect(receiver.seen).toContain('GET /.well-known/oauth-protected-resource/mcp');
    expect(issuer.seen).toEqual([]);
    expect(auth.confirmOrigin('https://elsewhere.example', true)).toBe(false);
    expect(auth.confirmOrigin(issuer.url, true)).toBe(true);
    const ready = await settled(auth);
    expect(ready.status).toBe('sign-in-needed');
    expect(issuer.seen).toContain('GET /.well-known/oauth-authorization-server/tenant');
    expect(issuer.seen).toContain('POST /tenant/register');
    expect(new URL(ready.authorizationUrl!).origin).toBe(issuer.url);
  });

  it('not allowed: nothing goes there, and the sign-in fails saying so', async () => {
    const { issuer, auth, view } = await twoOrigins();
    expect(auth.confirmOrigin(view.confirmOrigin!, false)).toBe(true);
    const failed = await settled(auth);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain(`${issuer.url}, named by the receiver's metadata, was not allowed`);
    expect(issuer.seen).toEqual([]);
  });
});
