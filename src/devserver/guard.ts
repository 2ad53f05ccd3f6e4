/**
 * Who may talk to a server Taskscope runs on this machine. Every web page a person visits can send requests to
 * loopback, so every listener here — the start server and its relay, the demo receivers, the hostile receiver —
 * asks `refusal()` first, with its own policy, and only phrases the answer its own way.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { sendPlain } from './http-server.js';

/** The host names that mean this machine, as URL parsing spells them. */
export const LOOPBACK_HOSTNAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The host name of a Host header, or undefined when it is not a plain host[:port]. */
export function hostnameOf(host: string | undefined): string | undefined {
  if (!host || /[\s/\\?#@]/.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

/** Extra host names from e.g. `ALLOWED_HOSTS=a.example,b.example`; a typo fails loudly rather than allowing nothing. */
export function allowedHostsFromEnv(name = 'ALLOWED_HOSTS'): string[] {
  const hosts = (process.env[name] ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  for (const host of hosts) {
    if (hostnameOf(host) !== host) {
      throw new Error(`${name}: "${host}" is not a host name (give it without scheme, port or path)`);
    }
  }
  return hosts;
}

/**
 * DNS rebinding guard: a page on evil.example that re-points its name at 127.0.0.1 reaches us with
 * `Host: evil.example`. Any port is accepted: a rebinding page cannot forge a loopback name, and a fixed port
 * would break SSH or container port forwarding.
 */
export function isAllowedHost(host: string | undefined, extra: readonly string[]): boolean {
  const hostname = hostnameOf(host);
  return hostname !== undefined && (LOOPBACK_HOSTNAMES.has(hostname) || extra.includes(hostname));
}

function hostRefusal(host: string | undefined): string {
  const hostname = hostnameOf(host);
  return hostname === undefined
    ? 'Missing or malformed Host header'
    : `Host ${hostname} is not allowed; add it to ALLOWED_HOSTS to serve it`;
}

/**
 * True when `origin` is the page this server serves: http, the very host:port of the Host header, and that host
 * allowed. Browsers send the exact serialisation, so anything else (a path, "null", another port) is foreign.
 */
export function isOwnOrigin(origin: string, host: string | undefined, extra: readonly string[]): boolean {
  if (!isAllowedHost(host, extra)) return false;
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' && url.origin === origin && url.host === new URL(`http://${host}`).host;
  } catch {
    return false;
  }
}

/** A page served from this machine (any port, http or https). */
function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTNAMES.has(url.hostname);
  } catch {
    return false;
  }
}

/** A page served by this very server under an allow-listed Host (also behind a proxy that speaks https). */
function isSameHost(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

export interface GuardPolicy {
  /** Host names served besides loopback ones (ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  /**
   * Which pages may send: `own`, only the page this server serves (the start server, its relay); `local`, any
   * page on this machine, this server's own, and `allowedOrigins` (the demo receivers, for other local tools).
   * A request without Origin is no page (curl, Node clients) and passes either way.
   */
  pages: 'own' | 'local';
  allowedOrigins?: readonly string[];
  /** Also refuse a browser request whose Sec-Fetch-Site says it came from another site (the relay). */
  fetchSite?: boolean;
  /** Also refuse a browser navigation (Sec-Fetch-Mode: navigate): what answers here must never be a page. */
  noNavigation?: boolean;
}

export interface Refusal {
  what: 'host' | 'origin';
  /** Says what was refused, without echoing more than 200 characters of it. */
  message: string;
}

/** Why a request may not be served under `policy`, or undefined when it may. */
export function refusal(headers: IncomingHttpHeaders, policy: GuardPolicy): Refusal | undefined {
  const { host, origin } = headers;
  if (!isAllowedHost(host, policy.allowedHosts)) return { what: 'host', message: hostRefusal(host) };
  const allowed =
    origin === undefined ||
    (policy.pages === 'own'
      ? isOwnOrigin(origin, host, policy.allowedHosts)
      : (policy.allowedOrigins ?? []).includes(origin) ||
        isLoopbackOrigin(origin) ||
        isSameHost(origin, host));
  if (!allowed)
    return { what: 'origin', message: `Origin ${JSON.stringify(origin.slice(0, 200))} is not allowed here` };
  const site = headers['sec-fetch-site'];
  if (policy.fetchSite && site !== undefined && site !== 'same-origin' && site !== 'none')
    return { what: 'origin', message: `A ${String(site).slice(0, 40)} request is not allowed here` };
  if (policy.noNavigation && headers['sec-fetch-mode'] === 'navigate')
    return { what: 'origin', message: 'A browser navigation is not allowed here' };
  return undefined;
}

/** 403 in plain text for a request `policy` refuses (the start server's pages and files). */
export function plainGuard(policy: GuardPolicy): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const refused = refusal(req.headers, policy);
    if (!refused) return next();
    sendPlain(res, 403, `Forbidden: ${refused.message}\n`);
  };
}

export interface ReceiverGuardOptions {
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  /** Off: no CORS headers and no preflight answer, as servers without CORS middleware (the Origin check stays). */
  cors?: boolean;
  /** The CORS headers of this receiver's generation (which request headers it accepts and exposes). */
  setCors: (req: Request, res: Response, origin: string) => void;
  sendError: (res: Response, status: number, code: number, message: string) => void;
}

/**
 * What both demo receivers check before anything else, as the transport spec asks: a Host that is ours (DNS
 * rebinding), an Origin that is local or allowed, refusals as JSON-RPC errors; then CORS and preflights.
 */
export function receiverGuard(options: ReceiverGuardOptions): RequestHandler {
  const policy: GuardPolicy = {
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    pages: 'local',
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const refused = refusal(req.headers, policy);
    if (refused) {
      options.sendError(res, 403, refused.what === 'host' ? -32600 : -32000, `Forbidden: ${refused.message}`);
      return;
    }
    if (options.cors === false) return next();
    const origin = req.headers.origin;
    if (origin) options.setCors(req, res, origin);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    next();
  };
}
