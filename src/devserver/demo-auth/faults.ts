import type { NextFunction, Request, Response } from 'express';

/**
 * Rules of the MCP authorization spec the demo can break on request (`/demo/mcp-auth?faults=a,b`), so the
 * sign-in steps can be seen failing with their reasons.
 */
export const AUTH_FAULTS = [
  /** The 401's challenge names no resource_metadata: the client must try the well-known URLs. */
  'no-resource-metadata',
  /** The protected resource metadata names another resource (RFC 9728 §3.3). */
  'resource-mismatch',
  /** The authorization server's metadata lists no PKCE methods. */
  'no-s256',
  /** The callback's iss is not the issuer (RFC 9207). */
  'issuer-mismatch',
  /**
   * The token endpoint takes client_secret_basic only (with a 401 and `WWW-Authenticate: Basic` otherwise), while
   * registration still registers a public client: the pre-registered client signs in, one registered dynamically
   * is refused at the token request.
   */
  'basic-auth',
  /**
   * The resource metadata names the authorization server on another origin (the other loopback name,
   * localhost for 127.0.0.1 and back): the person is asked before the flow contacts it.
   */
  'other-origin',
] as const;
export type AuthFault = (typeof AUTH_FAULTS)[number];

/**
 * The report-card rule each fault breaks (the fault matrix holds every fault to it); null for the two that
 * break no rule: `basic-auth` is a token endpoint authentication method a server may choose (the pre-registered
 * client copes; for a public client the steps name the registration it breaks), and `other-origin` an
 * authorization server a receiver may name anywhere (the person is asked first).
 */
export const AUTH_FAULT_RULES: Record<AuthFault, string | null> = {
  'no-resource-metadata': 'auth-challenge-names-metadata',
  'resource-mismatch': 'auth-resource-matches',
  'no-s256': 'auth-s256-offered',
  'issuer-mismatch': 'auth-issuer-matches',
  'basic-auth': null,
  'other-origin': null,
};

export function parseAuthFaults(raw: unknown): AuthFault[] {
  if (typeof raw !== 'string') return [];
  const wanted = new Set(raw.split(',').map((f) => f.trim()));
  return AUTH_FAULTS.filter((f) => wanted.has(f));
}

/** The faults ride in the issuer's path, so every URL of the authorization server carries them. */
export const faultPath = (faults: readonly AuthFault[]) =>
  faults.length > 0 ? `/faults/${faults.join(',')}` : '';

/** basic-auth: a client must send its id and secret in Authorization: Basic; they reach the SDK's handler in the body. */
export function basicOnly(req: Request, res: Response, next: NextFunction): void {
  const header = req.headers.authorization ?? '';
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
  if (!match) {
    res.status(401).set('WWW-Authenticate', 'Basic realm="demo"').json({
      error: 'invalid_client',
      error_description: 'This token endpoint takes client_secret_basic only',
    });
    return;
  }
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString();
  const colon = decoded.indexOf(':');
  const body = (req.body ?? {}) as Record<string, unknown>;
  body.client_id = decodeURIComponent(decoded.slice(0, colon < 0 ? undefined : colon));
  if (colon >= 0) body.client_secret = decodeURIComponent(decoded.slice(colon + 1));
  req.body = body;
  next();
}

/** other-origin: the same server under the other loopback name, so its origin differs from the receiver's. */
export function otherLoopbackOrigin(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === '127.0.0.1') parsed.hostname = 'localhost';
  else if (parsed.hostname === 'localhost') parsed.hostname = '127.0.0.1';
  return parsed.href.replace(/\/$/, '');
}
