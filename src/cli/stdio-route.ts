/**
 * `check` and `watch` with `--stdio -- cmd…`: the engine speaks Streamable HTTP only, so the stdio server is
 * offered to it the way `taskscope --stdio` offers it to the page — through the same stdio bridge, on a
 * loopback port of this process with a per-run token — and stopped with the command.
 */
import { randomBytes } from 'node:crypto';
import express from 'express';
import type { StdioRoute } from '../mcp';
import { listenOnLoopback } from '../devserver/http-server';
import { createStdioBridge, type StdioReceiver } from '../devserver/stdio/bridge';
import { newRelayToken } from '../devserver/relay/route';

export interface OpenedStdio {
  /** The receiver URL the engine connects to. */
  url: string;
  route: StdioRoute;
  /** Stops the server process (stdin closed, then SIGTERM, SIGKILL after a grace) and the port. */
  close: () => Promise<void>;
}

export async function openStdio(receiver: StdioReceiver): Promise<OpenedStdio> {
  const token = newRelayToken();
  const bridge = createStdioBridge({ receivers: [receiver], token });
  const app = express();
  app.disable('x-powered-by');
  app.use(bridge.handler);
  const listening = await listenOnLoopback(app, 0);
  return {
    url: `${listening.url}/stdio/${receiver.name}/mcp`,
    route: { token, connection: randomBytes(16).toString('base64url') },
    close: async () => {
      await bridge.close();
      await listening.close();
    },
  };
}
