import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { createDemoReceiver, type DemoReceiver } from '../../src/devserver/demo/receiver';
import { listenOnLoopback } from '../../src/devserver/http-server';

export interface RunningReceiver {
  /** The MCP endpoint. */
  url: string;
  close: () => Promise<void>;
}

/** HTTP requests that reached a receiver, by HTTP method: counted on arrival, before the receiver reads them. */
export type Arrivals = Record<string, number>;

/** A receiver's router at /mcp on a loopback port (a free one unless given: a restart reuses the port it had). */
export async function serveOnLoopback(
  router: express.Router,
  close: () => Promise<void>,
  port = 0,
): Promise<RunningReceiver & { port: number; arrivals: Arrivals }> {
  const app = express();
  const arrivals: Arrivals = {};
  app.use(
    '/mcp',
    (req, _res, next) => {
      arrivals[req.method] = (arrivals[req.method] ?? 0) + 1;
      next();
    },
    router,
  );
  const listening = await listenOnLoopback(app, port);
  return {
    url: `${listening.url}/mcp`,
    port: Number(new URL(listening.url).port),
    arrivals,
    close: async () => {
      await close();
      await listening.close();
    },
  };
}

/** Our demo receiver on a loopback port. */
export async function startDemoReceiver(
  options: { port?: number; cors?: boolean } = {},
): Promise<RunningReceiver & { receiver: DemoReceiver; port: number; arrivals: Arrivals }> {
  const receiver = createDemoReceiver({ cors: options.cors });
  return { ...(await serveOnLoopback(receiver.router, receiver.close, options.port)), receiver };
}

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** @modelcontextprotocol/server-everything over Streamable HTTP, in a child process bound to loopback. */
export async function startEverything(): Promise<RunningReceiver> {
  const entry = path.join(
    path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist/index.js',
  );
  const child = spawn(
    process.execPath,
    ['--import', path.join(here, 'loopback-only.mjs'), entry, 'streamableHttp'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: '0' },
    },
  );
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not start:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /LOOPBACK_PORT=(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code}:\n${output}`));
    });
  });
  // Keep draining its chatty logs so the pipe never fills and stalls it.
  child.stdout.resume();
  child.stderr.resume();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
