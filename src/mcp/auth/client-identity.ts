import { registerClient } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { addressKind } from '../ip-ranges';
import { AuthFailure, type Discovered } from './discovery';
import { registrationRefused } from './refusals';
import type { StepLog } from './step-log';
import type { AuthClientChoice, ClientKind } from './types';

export interface ChosenClient {
  info: OAuthClientInformationMixed;
  kind: ClientKind;
  /** The step's words and rule. */
  summary: string;
  spec: string;
}

/**
 * Who Taskscope is to this authorization server, in the spec's order of preference: a pre-registered client the
 * person entered; a Client ID Metadata Document where the server supports one; dynamic registration (RFC 7591).
 */
export async function chooseClient(
  discovered: Discovered,
  { choice, redirectUri, fetchFn }: { choice: AuthClientChoice; redirectUri: string; fetchFn: typeof fetch },
): Promise<ChosenClient> {
  if (choice.clientId)
    return {
      info: {
        client_id: choice.clientId,
        ...(choice.clientSecret ? { client_secret: choice.clientSecret } : {}),
      },
      kind: 'pre-registered',
      summary: `Pre-registered client ${choice.clientId}${choice.clientSecret ? ' with a secret' : ''}`,
      spec: 'MCP authorization, Client Registration',
    };
  if (choice.clientMetadataUrl && discovered.metadata?.client_id_metadata_document_supported) {
    if (!isMetadataDocumentUrl(choice.clientMetadataUrl))
      throw new AuthFailure(
        `The client id ${choice.clientMetadataUrl.slice(0, 200)} is not an https URL with a path: a Client ID Metadata Document's URL must be one`,
        'MCP authorization, Client ID Metadata Documents',
      );
    return {
      info: { client_id: choice.clientMetadataUrl },
      kind: 'metadata-document',
      summary: `Client ID Metadata Document ${choice.clientMetadataUrl}`,
      spec: 'MCP authorization, Client ID Metadata Documents',
    };
  }
  if (discovered.metadata && !discovered.metadata.registration_endpoint)
    throw new AuthFailure(
      'The authorization server offers no dynamic registration: enter a pre-registered client id under Client identity',
      'MCP authorization, Client Registration; RFC 7591 §3',
      { summary: 'No registration offered', needs: 'client' },
    );
  const registered = await registerClient(discovered.authorizationServerUrl, {
    metadata: discovered.metadata,
    clientMetadata: registrationMetadata(redirectUri),
    scope: discovered.scope,
    fetchFn,
  });
  return {
    info: registered,
    kind: 'dynamic',
    summary: `Registered as ${registered.client_id}${choice.clientMetadataUrl ? ' (the server does not support Client ID Metadata Documents)' : ''}`,
    spec: 'RFC 7591 §3',
  };
}

/**
 * What Taskscope registers as (RFC 7591 §2): a public client (a page keeps no secret) with the OIDC
 * `application_type` the MCP spec asks for (SEP-837; an authorization server that gets none assumes "web" and
 * may refuse a loopback redirect). The page is served from loopback with a loopback redirect: "native", as
 * RFC 8252 has it and as SDK 2.4's deriveApplicationType derives it; a page served to the network (a non-loopback
 * redirect, `--allow-remote`) is "web".
 */
export function registrationMetadata(
  redirectUri: string,
): OAuthClientMetadata & { application_type: 'native' | 'web' } {
  return {
    client_name: 'Taskscope',
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: applicationTypeOf(redirectUri),
  };
}

function applicationTypeOf(redirectUri: string): 'native' | 'web' {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return 'web';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'native';
  const host = url.hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || addressKind(host) === 'loopback'
    ? 'native'
    : 'web';
}

/** https, with a path beyond "/": the form a Client ID Metadata Document's URL takes. */
function isMetadataDocumentUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' && url.pathname.length > 1 && !url.hash && !url.username;
  } catch {
    return false;
  }
}

/** The client known per authorization server: one registration each, reused by every later sign-in. */
export class KnownClients {
  private readonly byServer = new Map<string, { info: OAuthClientInformationMixed; kind: ClientKind }>();

  kindOf(server: string): ClientKind | undefined {
    return this.byServer.get(server)?.kind;
  }

  set(server: string, info: OAuthClientInformationMixed, kind: ClientKind): void {
    this.byServer.set(server, { info, kind });
  }

  /** The client for this server: the one known, else one chosen now (chooseClient), its step written. */
  async for(
    discovered: Discovered,
    options: { choice: AuthClientChoice; redirectUri: string; fetchFn: typeof fetch },
    log: StepLog,
  ): Promise<OAuthClientInformationMixed> {
    const server = discovered.authorizationServerUrl;
    const known = this.byServer.get(server);
    if (known) return known.info;
    const { info, kind, summary, spec } = await chooseClient(discovered, options).catch((error: unknown) => {
      // Before the step is written, the registration's exchange is still the last one under way.
      throw registrationRefused(error, log.exchanges.at(-1));
    });
    log.add('client', true, summary, { spec });
    this.set(server, info, kind);
    return info;
  }
}
