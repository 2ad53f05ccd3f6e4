import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';

export interface Listening {
  server: Server;
  url: string;
  close: () => Promise<void>;
}

/** Listens on loopback only: Taskscope's servers are for this machine, never the network. */
export function listenOnLoopback(app: Express | Server, port: number): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = typeof app === 'function' ? createServer(app) : app;
    server.listen(port, '127.0.0.1');
    server.once('error', reject);
    server.once('listening', () => {
      const address = server.address();
      const actual = typeof address === 'object' && address ? address.port : port;
      resolve({
        server,
        url: `http://127.0.0.1:${actual}`,
        close: () =>
          new Promise<void>((done) => {
            // Open SSE streams would keep close() waiting for ever.
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

export function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`${name}=${raw} is not a port number`);
  }
  return port;
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

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

/** The host name of a Host header, or undefined when it is not a plain host[:port]. */
export function hostnameOf(host: string | undefined): string | undefined {
  if (!host || /[\s/\\?#@]/.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
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

export function hostRefusal(host: string | undefined): string {
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

function sendPlain(res: Response, status: number, text: string): void {
  res.status(status).type('text/plain').set('X-Content-Type-Options', 'nosniff').send(text);
}

/** 403 in plain text for any request whose Host is neither loopback nor in `extra`. */
export function hostAllowList(extra: readonly string[]): RequestHandler {
  return (req: Request, res: Response, next) => {
    if (isAllowedHost(req.headers.host, extra)) return next();
    sendPlain(res, 403, `Forbidden: ${hostRefusal(req.headers.host)}\n`);
  };
}

export const plainNotFound: RequestHandler = (_req, res) => sendPlain(res, 404, 'Not Found\n');

/** The last handler: Express's own would render HTML with a stack trace and absolute paths outside production. */
export const plainErrors: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const raw = (err as { status?: unknown } | null)?.status;
  const status = typeof raw === 'number' && raw >= 400 && raw < 600 ? raw : 500;
  if (status >= 500) console.error(err);
  sendPlain(res, status, `${STATUS_CODES[status] ?? 'Error'}\n`);
};

/**
 * 403 for any request a foreign page sends (an Origin that is not our own); requests without Origin
 * (navigations, curl) pass. The demo receiver answers its own Origin refusals in JSON-RPC, so it is mounted first.
 */
export function sameOriginOnly(extra: readonly string[]): RequestHandler {
  return (req: Request, res: Response, next) => {
    const origin = req.headers.origin;
    if (origin === undefined || isOwnOrigin(origin, req.headers.host, extra)) return next();
    sendPlain(
      res,
      403,
      `Forbidden: requests from origin ${JSON.stringify(origin.slice(0, 200))} are not accepted\n`,
    );
  };
}
