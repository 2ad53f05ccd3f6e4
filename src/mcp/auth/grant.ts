import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { endpointRefusal, type Discovered } from './discovery';
import type { AuthClientChoice, AuthStep, AuthStatus, AuthView, ClientKind, RememberedSignIn } from './types';

/**
 * What one sign-in holds, as plain data: the sign-in on its way (PKCE verifier and state, until the callback), the
 * grant it ended in, the view the page draws of them, and a remembered sign-in read back from storage.
 */

export interface Pending {
  state: string;
  codeVerifier: string;
  discovered: Discovered;
  client: OAuthClientInformationMixed;
}

export interface Grant {
  tokens: OAuthTokens;
  expiresAt?: number;
  discovered: Discovered;
  client: OAuthClientInformationMixed;
}

export function grantOf(
  tokens: OAuthTokens,
  discovered: Discovered,
  client: OAuthClientInformationMixed,
  now: number,
): Grant {
  return {
    tokens,
    discovered,
    client,
    expiresAt: tokens.expires_in !== undefined ? now + tokens.expires_in * 1000 : undefined,
  };
}

/** The scopes a 403 insufficient_scope asks for that the grant does not hold (space-separated lists, RFC 6749 §3.3). */
export function missingScopes(asked: string | undefined, granted: string | undefined): string[] {
  const held = new Set((granted ?? '').split(' ').filter(Boolean));
  return [...new Set((asked ?? '').split(' ').filter(Boolean))].filter((scope) => !held.has(scope));
}

/** An unguessable OAuth state (RFC 6749 §10.12), base64url. */
export function randomState(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** A remembered sign-in comes from this browser's storage: its shape is checked before it is used. */
export function rememberedGrant(
  remembered: RememberedSignIn,
  receiverUrl: string,
): (Grant & { kind?: ClientKind }) | undefined {
  const grant = remembered.grant as Partial<Grant & { kind: ClientKind }> | undefined;
  const ok =
    remembered.version === 1 &&
    remembered.receiverUrl === receiverUrl &&
    typeof grant?.tokens?.access_token === 'string' &&
    typeof grant.discovered?.authorizationServerUrl === 'string' &&
    typeof grant.discovered.resource === 'string' &&
    typeof grant.client?.client_id === 'string';
  if (!ok) return undefined;
  // Whatever can write this origin's storage could aim the refresh token elsewhere: the endpoints a refresh
  // uses are vetted again, as they were when the sign-in found them.
  const endpoints = [grant.discovered?.authorizationServerUrl, grant.discovered?.metadata?.token_endpoint];
  for (const url of endpoints)
    if (url !== undefined && (typeof url !== 'string' || endpointRefusal(url, receiverUrl) !== undefined))
      return undefined;
  return grant as Grant & { kind?: ClientKind };
}

/** The page's view of a sign-in: no token, no verifier, no secret. */
export function describeSignIn(at: {
  status: AuthStatus;
  confirmOrigin?: string;
  error: string | undefined;
  clientNeeded?: boolean;
  missingScopes?: string[];
  steps: AuthStep[];
  pending: Pending | undefined;
  grant: Grant | undefined;
  authorizationUrl: string | undefined;
  receiverUrl: string;
  kindOf: (authorizationServerUrl: string) => ClientKind | undefined;
}): AuthView {
  const { grant, pending, status } = at;
  const discovered = grant?.discovered ?? pending?.discovered;
  const client = grant?.client ?? pending?.client;
  const origins = new Set<string>();
  for (const step of at.steps)
    for (const exchange of step.exchanges) {
      try {
        origins.add(new URL(exchange.url).origin);
      } catch {
        // A URL the flow could not parse never went out.
      }
    }
  if (pending) origins.add(new URL(at.authorizationUrl ?? at.receiverUrl).origin);
  return {
    status,
    authorizationUrl:
      status === 'sign-in-needed' || status === 'step-up-needed' ? at.authorizationUrl : undefined,
    state: pending?.state,
    confirmOrigin: at.confirmOrigin,
    issuer: discovered?.metadata?.issuer ?? discovered?.authorizationServerUrl,
    clientId: client?.client_id,
    clientKind: client ? at.kindOf(discovered?.authorizationServerUrl ?? '') : undefined,
    scopes: grant
      ? (grant.tokens.scope?.split(' ').filter(Boolean) ?? discovered?.scope?.split(' '))
      : discovered?.scope?.split(' '),
    expiresAt: grant?.expiresAt,
    canRefresh: grant?.tokens.refresh_token !== undefined,
    error: at.error,
    ...(at.clientNeeded ? { clientNeeded: true } : {}),
    ...(status === 'step-up-needed' && at.missingScopes ? { missingScopes: at.missingScopes } : {}),
    origins: [...origins],
    steps: at.steps,
  };
}

/** The client as "Remember sign-in" keeps it: without a pre-registered client's secret, which is the person's. */
export function keptClient(
  client: OAuthClientInformationMixed,
  kind: ClientKind | undefined,
): OAuthClientInformationMixed {
  if (kind !== 'pre-registered' || !('client_secret' in client)) return client;
  const { client_secret: _secret, ...kept } = client;
  return kept;
}

/** The sign-in as "Remember sign-in" writes it to this browser's storage. */
export function rememberSignIn(
  grant: Grant,
  kind: ClientKind | undefined,
  receiverUrl: string,
): RememberedSignIn {
  return {
    version: 1,
    receiverUrl,
    issuer: grant.discovered.metadata?.issuer ?? grant.discovered.authorizationServerUrl,
    grant: { ...grant, client: keptClient(grant.client, kind), kind },
  };
}

/** A remembered sign-in taken up again: checked (rememberedGrant), with the person's own secret put back. */
export function restoredGrant(
  remembered: RememberedSignIn,
  receiverUrl: string,
  choice: AuthClientChoice | undefined,
): { grant: Grant; kind: ClientKind } | undefined {
  const full = rememberedGrant(remembered, receiverUrl);
  if (!full) return undefined;
  // A pre-registered client's secret is the person's and stays in the tab's memory (the client identity
  // form): it was not remembered, and comes back only from what the person entered in this tab.
  const client =
    full.kind === 'pre-registered' && choice?.clientSecret && choice.clientId === full.client.client_id
      ? { ...full.client, client_secret: choice.clientSecret }
      : full.client;
  return {
    grant: { tokens: full.tokens, discovered: full.discovered, client, expiresAt: full.expiresAt },
    kind: full.kind ?? 'dynamic',
  };
}
