import { selectClientAuthMethod } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import { cutText } from '../json';
import { AuthFailure, type Discovered } from './discovery';
import type { AuthExchange, ClientKind } from './types';

const MAX_QUOTED = 300;

/** What an authorization server's error answer said (RFC 6749 §5.2, RFC 7591 §3.2.2), from the exchange kept. */
export interface ServerRefusal {
  status?: number;
  error?: string;
  description?: string;
}

export function refusalOf(exchange: AuthExchange | undefined): ServerRefusal {
  const refusal: ServerRefusal = { status: exchange?.status };
  try {
    const body = JSON.parse(exchange?.responseBody ?? '') as { error?: unknown; error_description?: unknown };
    if (typeof body.error === 'string') refusal.error = cutText(body.error, MAX_QUOTED);
    if (typeof body.error_description === 'string')
      refusal.description = cutText(body.error_description, MAX_QUOTED);
  } catch {
    // Not JSON (or cut short): the status is all there is to say.
  }
  return refusal;
}

/** "HTTP 401 invalid_client: …", as much of it as the server sent. */
export function refusalWords(refusal: ServerRefusal): string {
  const head = [refusal.status !== undefined ? `HTTP ${refusal.status}` : '', refusal.error ?? '']
    .filter(Boolean)
    .join(' ');
  return refusal.description ? `${head}: ${refusal.description}` : head;
}

/**
 * A registration that did not give a client: refused with the server's own error and description, or answered
 * with something that is not a client. Anything else (no answer) stays as it was thrown.
 */
export function registrationRefused(error: unknown, exchange: AuthExchange | undefined): unknown {
  if (error instanceof AuthFailure || exchange?.status === undefined) return error;
  const refusal = refusalOf(exchange);
  if (exchange.status >= 200 && exchange.status < 300)
    return new AuthFailure(
      `The registration's answer (HTTP ${exchange.status}) is not a client: ${error instanceof Error ? error.message : String(error)}`,
      'RFC 7591 §3.2.1',
      { summary: 'Registration answered with no client' },
    );
  const said = refusal.error || refusal.description ? refusalWords(refusal) : `HTTP ${exchange.status}`;
  return new AuthFailure(`The authorization server refused the registration (${said})`, 'RFC 7591 §3.2.2', {
    summary: `Registration refused: ${refusal.error ?? `HTTP ${exchange.status}`}`,
  });
}

export interface TokenRequestOf {
  exchange: AuthExchange | undefined;
  discovered: Discovered;
  client: OAuthClientInformationMixed;
  kind: ClientKind | undefined;
}

/**
 * A token request the server refused, said with what it refused and which rule decides it: for a refused
 * client authentication, the method Taskscope used against the methods the metadata lists and the client was
 * registered with (a server that registers a public client and then refuses it at its token endpoint breaks
 * its own registration). No answer at all stays as it was thrown (the exchange says so).
 */
export function tokenRefused(error: unknown, at: TokenRequestOf): unknown {
  if (error instanceof AuthFailure || at.exchange?.status === undefined) return error;
  const refusal = refusalOf(at.exchange);
  const said = refusalWords(refusal);
  if (refusal.status !== 401 && refusal.error !== 'invalid_client')
    return new AuthFailure(`The token endpoint refused the request (${said})`, 'RFC 6749 §5.2', {
      summary: `Token request refused: ${refusal.error ?? `HTTP ${refusal.status}`}`,
    });
  const listed = at.discovered.metadata?.token_endpoint_auth_methods_supported;
  const used = selectClientAuthMethod(at.client, listed ?? []);
  const registered =
    'token_endpoint_auth_method' in at.client ? at.client.token_endpoint_auth_method : undefined;
  const hasSecret = at.client.client_secret !== undefined;
  const summary = `Client authentication refused (${used})`;
  if (at.kind === 'dynamic' && !hasSecret && (registered ?? 'none') === 'none')
    return new AuthFailure(
      `The authorization server registered Taskscope as a public client (token_endpoint_auth_method none, no secret), then its token endpoint refused that client (${said})${listed ? `; its metadata lists ${listed.join(', ')} only` : ''}. A server that takes no public client must refuse the registration, or register a method it takes and issue the secret for it`,
      'RFC 7591 §3.2.1, RFC 6749 §2.3.1',
      { summary: `${summary}: the server refuses the public client it registered` },
    );
  if (listed && !listed.includes(used))
    return new AuthFailure(
      `The token endpoint refused client ${at.client.client_id} authenticating with ${used} (${said}); its metadata lists ${listed.join(', ')}${hasSecret ? '' : ': enter the client secret'}`,
      'RFC 8414 §2 (token_endpoint_auth_methods_supported), RFC 6749 §2.3.1',
      { summary },
    );
  return new AuthFailure(
    `The token endpoint refused client ${at.client.client_id} authenticating with ${used}${listed ? ', a method its metadata lists' : ''} (${said})${at.kind === 'pre-registered' ? ': check the client id and secret' : ''}`,
    'RFC 6749 §2.3.1, §5.2',
    { summary },
  );
}
