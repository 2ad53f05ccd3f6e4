import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { ErrorRequestHandler, Express, RequestHandler, Response } from 'express';

export interface Listening {
  server: Server;
  url: string;
  close: () => Promise<void>;
}

/**
 * Listens on loopback: Taskscope's servers are for this machine. Only `taskscope --allow-remote` passes
 * another host.
 */
export function listenOnLoopback(
  app: Express | Server,
  port: number,
  host = '127.0.0.1',
): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = typeof app === 'function' ? createServer(app) : app;
    server.listen(port, host);
    server.once('error', reject);
    server.once('listening', () => {
      const address = server.address();
      const actual = typeof address === 'object' && address ? address.port : port;
      resolve({
        server,
        url: `http://${urlHost(host)}:${actual}`,
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

/** The host as a URL spells it: IPv6 in brackets, a wildcard address as the loopback one that reaches it. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
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

export function sendPlain(res: Response, status: number, text: string): void {
  res.status(status).type('text/plain').set('X-Content-Type-Options', 'nosniff').send(text);
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
