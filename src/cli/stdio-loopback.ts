/**
 * `check` and `watch` with `--stdio -- cmd…`: the engine speaks Streamable HTTP only, so the stdio server is
 * offered to it the way `taskscope --stdio` offers it to the page — through the same stdio bridge, on a
 * loopback port of this process with a per-run token — and stopped with the command.
 */
import { randomBytes } from 'node:crypto';
import express from 'express';
import type { StdioRoute } from '../mcp';
import { listenOnLoopback, plainErrors, plainNotFound } from '../devserver/http-server';
import { createStdioBridge, type StdioReceiver } from '../devserver/stdio/bridge';
import { newRelayToken } from '../devserver/relay/route';
import { oneLine } from '../format/control-chars';

export interface OpenedStdio {
  /** The receiver URL the engine connects to. */
  url: string;
  route: StdioRoute;
  /** Stops the server process (stdin closed, then SIGTERM, SIGKILL after a grace) and the port. */
  close: () => Promise<void>;
  /** How the server ended, once it has (the bridge starts no second one): undefined while it runs. */
  ended: () => string | undefined;
}

/**
 * `interruptHandled`: whether the command answers Ctrl-C itself right now (watch, to cancel its task on the
 * server first); its own clean-up then closes this.
 */
export async function openStdio(
  receiver: StdioReceiver,
  interruptHandled: () => boolean = () => false,
): Promise<OpenedStdio> {
  const token = newRelayToken();
  const bridge = createStdioBridge({ receivers: [receiver], token });
  const app = express();
  app.disable('x-powered-by');
  app.use(bridge.handler);
  app.use(plainNotFound);
  app.use(plainErrors);
  const listening = await listenOnLoopback(app, 0);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await bridge.close();
      await listening.close();
    })());
  // The server runs in a process group of its own (a terminal's Ctrl-C does not reach it): it is ours to stop
  // on every way out, a signal included.
  const onSignal = (signal: NodeJS.Signals) => {
    if (signal === 'SIGINT' && interruptHandled()) return;
    void close().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    url: `${listening.url}/stdio/${receiver.name}/mcp`,
    route: { token, connection: randomBytes(16).toString('base64url') },
    close,
    ended: () => {
      const conn = bridge.connections().find((c) => c.started && !c.alive);
      return conn?.child ? oneLine(conn.child.describeEnd()) : undefined;
    },
  };
}
