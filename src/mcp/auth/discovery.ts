import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { checkResourceAllowed } from '@modelcontextprotocol/sdk/shared/auth-utils.js';
import type {
  AuthorizationServerMetadata,
  OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { isPrivateHost } from '../ip-ranges';

/**
 * A refusal of the flow, with the rule it answers to: shown as the step's why and spec, and the fault in a few
 * words as its summary. `needs: 'client'`: only a client identity the person enters can go on from here.
 */
export class AuthFailure extends Error {
  constructor(
    message: string,
    readonly spec?: string,
    readonly extra: { summary?: string; needs?: 'client' } = {},
  ) {
    super(message);
    this.name = 'AuthFailure';
  }
}

export interface Challenge {
  resourceMetadataUrl?: string;
  scope?: string;
  error?: string;
}

export interface Discovered {
  /** undefined: a 2025-03-26 server without protected resource metadata. */
  resourceMetadata?: OAuthProtectedResourceMetadata;
  authorizationServerUrl: string;
  /** undefined: the 2025-03-26 defaults (/authorize, /token, /register on the server's root). */
  metadata?: AuthorizationServerMetadata;
  /** The resource indicator sent on the authorization and token requests (RFC 8707). */
  resource: string;
  /** What to ask for: the challenge's scope, else the metadata's scopes_supported, plus offline_access when listed. */
  scope?: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * Whether the flow may contact `url`, given the receiver it signs in to. The URLs come from metadata the
 * receiver controls, so a remote receiver must not aim Taskscope (or its relay) at this machine or the local
 * network, and tokens travel over https only; a receiver on loopback may use loopback endpoints over http.
 */
export function endpointRefusal(url: string, receiverUrl: string): string | undefined {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return `${url.slice(0, 200)} is not a URL`;
  }
  const local = LOOPBACK.has(new URL(receiverUrl).hostname);
  if (local && LOOPBACK.has(target.hostname) && (target.protocol === 'http:' || target.protocol === 'https:'))
    return undefined;
  if (target.protocol !== 'https:') return `${target.origin} is not https (OAuth 2.1 §1.5)`;
  if (!local && isPrivateHost(target.hostname))
    return `${target.origin} is on this machine or a private network, and the receiver is not`;
  return undefined;
}

function sameIssuer(a: string, b: string): boolean {
  return a.replace(/\/$/, '') === b.replace(/\/$/, '');
}

/**
 * Protected resource metadata (RFC 9728: the challenge's URL first, then the path-aware and root well-known
 * URLs, as the SDK tries them), its resource checked against the receiver; then the authorization server's
 * metadata at the URLs the spec lists for its issuer (the SDK's order), its issuer checked and S256 required.
 */
export async function discover(
  receiverUrl: string,
  challenge: Challenge,
  fetchFn: typeof fetch,
  step: (ok: boolean, kind: 'resource-metadata' | 'server-metadata', summary: string, spec?: string) => void,
): Promise<Discovered> {
  if (challenge.resourceMetadataUrl) {
    const refused = endpointRefusal(challenge.resourceMetadataUrl, receiverUrl);
    if (refused)
      throw new AuthFailure(
        `The challenge's resource_metadata is refused: ${refused}`,
        'MCP authorization, Security',
      );
  }
  let resourceMetadata: OAuthProtectedResourceMetadata | undefined;
  try {
    resourceMetadata = await discoverOAuthProtectedResourceMetadata(
      receiverUrl,
      { resourceMetadataUrl: challenge.resourceMetadataUrl },
      fetchFn,
    );
  } catch (error) {
    if (challenge.resourceMetadataUrl)
      throw new AuthFailure(
        `The resource metadata the challenge names could not be read: ${(error as Error).message}`,
        'RFC 9728 §3',
      );
    step(
      false,
      'resource-metadata',
      'No protected resource metadata: treating the receiver as a 2025-03-26 server whose root is its authorization server',
      'MCP authorization 2025-03-26, Server Metadata Discovery',
    );
  }
  if (resourceMetadata) {
    if (
      !checkResourceAllowed({ requestedResource: receiverUrl, configuredResource: resourceMetadata.resource })
    )
      throw new AuthFailure(
        `The metadata's resource ${resourceMetadata.resource} does not match this receiver ${receiverUrl}`,
        'RFC 9728 §3.3',
      );
    step(
      true,
      'resource-metadata',
      `Resource ${resourceMetadata.resource} matches the receiver`,
      'RFC 9728 §3.3',
    );
  }
  const authorizationServerUrl = resourceMetadata?.authorization_servers?.[0] ?? new URL(receiverUrl).origin;
  const refused = endpointRefusal(authorizationServerUrl, receiverUrl);
  if (refused)
    throw new AuthFailure(`The authorization server is refused: ${refused}`, 'MCP authorization, Security');

  const metadata = await discoverAuthorizationServerMetadata(authorizationServerUrl, { fetchFn });
  if (!metadata) {
    if (resourceMetadata)
      throw new AuthFailure(
        `No authorization server metadata for ${authorizationServerUrl} at any of the URLs the spec lists`,
        'RFC 8414 §3, OpenID Connect Discovery §4',
      );
    step(
      false,
      'server-metadata',
      'No authorization server metadata: using /authorize, /token and /register on the root',
      'MCP authorization 2025-03-26, Fallbacks',
    );
  } else {
    if (resourceMetadata && !sameIssuer(metadata.issuer, authorizationServerUrl))
      throw new AuthFailure(
        `The metadata's issuer ${metadata.issuer} is not the authorization server it was fetched for (${authorizationServerUrl})`,
        'RFC 8414 §3.3',
      );
    const methods = metadata.code_challenge_methods_supported;
    if (!methods?.includes('S256'))
      throw new AuthFailure(
        methods
          ? `The authorization server offers PKCE ${methods.join(', ')} but not S256`
          : 'The authorization server metadata has no code_challenge_methods_supported, so PKCE S256 is not known to be supported',
        'MCP authorization, Authorization Code Protection (PKCE)',
      );
    for (const endpoint of [
      metadata.authorization_endpoint,
      metadata.token_endpoint,
      metadata.registration_endpoint,
    ]) {
      const why = endpoint ? endpointRefusal(endpoint, receiverUrl) : undefined;
      if (why)
        throw new AuthFailure(
          `An endpoint of the authorization server is refused: ${why}`,
          'MCP authorization, Security',
        );
    }
    step(true, 'server-metadata', `Authorization server ${metadata.issuer}: S256 offered`, 'RFC 8414 §3');
  }

  const scopes = new Set(
    (challenge.scope ?? resourceMetadata?.scopes_supported?.join(' ') ?? '').split(' ').filter(Boolean),
  );
  if (scopes.size > 0 && metadata?.scopes_supported?.includes('offline_access')) scopes.add('offline_access');
  return {
    resourceMetadata,
    authorizationServerUrl,
    metadata,
    resource: resourceMetadata?.resource ?? receiverUrl,
    scope: scopes.size > 0 ? [...scopes].join(' ') : undefined,
  };
}
