import { capMap } from '../../mcp/bounded-lists.js';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { consentPage } from './consent.js';

/** Short on purpose: a person sees a refresh within a minute of signing in. */
export const ACCESS_TOKEN_SECONDS = 60;
/** What every token carries; the challenge on a 401 names it. */
export const BASE_SCOPE = 'tools:run';
/** What flaky_job needs besides: a 403 insufficient_scope names it (step-up). */
export const EXTRA_SCOPE = 'tools:flaky';

export const OFFLINE_SCOPE = 'offline_access';

/** The client a person can enter instead of registering (docs/sign-in.md); loopback redirects match on any port. */
export const PRE_REGISTERED_CLIENT: OAuthClientInformationFull = {
  client_id: 'taskscope-demo',
  client_secret: 'demo-secret',
  client_name: 'Taskscope (pre-registered)',
  redirect_uris: ['http://127.0.0.1/oauth/callback', 'http://localhost/oauth/callback'],
  token_endpoint_auth_method: 'client_secret_post',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
};

// Caps: a demo that runs for days keeps a bounded number of everything a caller can make it hold.
const MAX_CLIENTS = 500;
const MAX_PENDING = 200;
const MAX_TOKENS = 2000;
const CODE_SECONDS = 120;

interface Pending {
  client: OAuthClientInformationFull;
  params: AuthorizationParams;
  created: number;
}
interface IssuedCode {
  clientId: string;
  params: AuthorizationParams;
  expiresAt: number;
}
interface Grant {
  clientId: string;
  scopes: string[];
  resource?: URL;
  expiresAt: number;
}

class DemoClients implements OAuthRegisteredClientsStore {
  private readonly clients = new Map<string, OAuthClientInformationFull>();

  getClient(clientId: string): OAuthClientInformationFull | undefined {
    if (clientId === PRE_REGISTERED_CLIENT.client_id) return PRE_REGISTERED_CLIENT;
    return this.clients.get(clientId);
  }

  registerClient(
    client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>,
  ): OAuthClientInformationFull {
    const full: OAuthClientInformationFull = {
      ...client,
      client_id: randomUUID(),
      client_id_issued_at: Math.floor(Date.now() / 1000),
    };
    this.clients.set(full.client_id, full);
    capMap(this.clients, MAX_CLIENTS);
    return full;
  }
}

export interface DemoAuthProviderOptions {
  /** Where the consent form posts (…/consent under the issuer). */
  consentPath: string;
  now?: () => number;
}

/**
 * The demo authorization server's state, behind the SDK's handlers: clients, one consent per authorization,
 * codes, access tokens that live a minute and refresh tokens. All in memory, all capped.
 */
export class DemoAuthProvider implements OAuthServerProvider {
  readonly clientsStore = new DemoClients();
  private readonly pending = new Map<string, Pending>();
  private readonly codes = new Map<string, IssuedCode>();
  private readonly access = new Map<string, Grant>();
  private readonly refresh = new Map<string, Omit<Grant, 'expiresAt'>>();
  private readonly now: () => number;

  constructor(private readonly options: DemoAuthProviderOptions) {
    this.now = options.now ?? Date.now;
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response) {
    const id = randomUUID();
    this.pending.set(id, { client, params, created: this.now() });
    capMap(this.pending, MAX_PENDING);
    const scopes = params.scopes?.length ? params.scopes : [BASE_SCOPE];
    res
      .status(200)
      .type('html')
      .set('Cache-Control', 'no-store')
      .set(
        'Content-Security-Policy',
        // frame-ancestors: a page elsewhere must not frame the one-click Allow.
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'",
      )
      .send(
        consentPage({
          id,
          clientName: client.client_name ?? client.client_id,
          scopes,
          action: this.options.consentPath,
        }),
      );
  }

  /** The person clicked Allow (or Deny): the redirect back to the client, with a code or an error. */
  decide(id: string, allow: boolean, issuer: string): string | undefined {
    const pending = this.pending.get(id);
    if (!pending) return undefined;
    this.pending.delete(id);
    const target = new URL(pending.params.redirectUri);
    if (pending.params.state !== undefined) target.searchParams.set('state', pending.params.state);
    target.searchParams.set('iss', issuer);
    if (!allow) {
      target.searchParams.set('error', 'access_denied');
      return target.href;
    }
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, {
      clientId: pending.client.client_id,
      params: pending.params,
      expiresAt: this.now() + CODE_SECONDS * 1000,
    });
    capMap(this.codes, MAX_PENDING);
    target.searchParams.set('code', code);
    return target.href;
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    const issued = this.codes.get(code);
    if (!issued || issued.clientId !== client.client_id)
      throw new InvalidGrantError('Unknown authorization code');
    return issued.params.codeChallenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _verifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    const issued = this.codes.get(code);
    // One use only (OAuth 2.1 §4.1.3).
    this.codes.delete(code);
    if (!issued || issued.clientId !== client.client_id || issued.expiresAt < this.now())
      throw new InvalidGrantError('The authorization code is unknown, used or expired');
    if (redirectUri !== undefined && redirectUri !== issued.params.redirectUri)
      throw new InvalidGrantError('redirect_uri differs from the authorization request');
    if (resource?.href !== issued.params.resource?.href)
      throw new InvalidGrantError('resource differs from the authorization request');
    const scopes = issued.params.scopes?.length ? issued.params.scopes : [BASE_SCOPE];
    return this.issue(client.client_id, scopes, issued.params.resource);
  }

  async exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    scopes?: string[],
    resource?: URL,
  ): Promise<OAuthTokens> {
    const grant = this.refresh.get(refreshToken);
    if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError('Unknown refresh token');
    if (resource !== undefined && resource.href !== grant.resource?.href)
      throw new InvalidGrantError('resource differs from the grant');
    const narrowed = scopes?.length ? scopes.filter((s) => grant.scopes.includes(s)) : grant.scopes;
    // Rotated, as OAuth 2.1 asks of public clients' refresh tokens.
    this.refresh.delete(refreshToken);
    return this.issue(client.client_id, narrowed, grant.resource);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const grant = this.access.get(token);
    if (!grant) throw new InvalidTokenError('Unknown access token');
    return {
      token,
      clientId: grant.clientId,
      scopes: grant.scopes,
      expiresAt: Math.floor(grant.expiresAt / 1000),
      resource: grant.resource,
    };
  }

  /** Ends every grant at once (tests: the next request is a 401 invalid_token). */
  expireAccessTokens(): void {
    this.access.clear();
  }

  private issue(clientId: string, scopes: string[], resource: URL | undefined): OAuthTokens {
    const accessToken = randomBytes(24).toString('base64url');
    this.access.set(accessToken, {
      clientId,
      scopes,
      resource,
      expiresAt: this.now() + ACCESS_TOKEN_SECONDS * 1000,
    });
    capMap(this.access, MAX_TOKENS);
    const tokens: OAuthTokens = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_SECONDS,
      scope: scopes.join(' '),
    };
    // A refresh token only for a client that asked to stay signed in (the scope the metadata lists).
    if (scopes.includes(OFFLINE_SCOPE)) {
      tokens.refresh_token = randomBytes(24).toString('base64url');
      this.refresh.set(tokens.refresh_token, { clientId, scopes, resource });
      capMap(this.refresh, MAX_TOKENS);
    }
    return tokens;
  }
}
