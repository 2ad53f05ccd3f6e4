import { createServer, type Server } from 'node:http';
import type { Express } from 'express';

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
