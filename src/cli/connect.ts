/**
 * Opening a connection for a command that runs without a person watching: the engine retries an unreachable
 * receiver with backoff for as long as the page is open; here it is given up after the command's --timeout.
 */
import type { ClassifiedError, EraChoice, ServerDescription, ServerTaskSupport } from '../mcp';
import type { StdioReceiver } from '../devserver/stdio/bridge';
import type { EngineClient } from './engine-client';
import { openStdio } from './stdio-loopback';

export type Connected = {
  ok: true;
  server: ServerDescription;
  support: ServerTaskSupport;
};
export type NotConnected = { ok: false; reason: string; error?: ClassifiedError };

/** Parses `Name: value` as --header takes it. */
export function parseHeader(text: string): [string, string] | undefined {
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  const name = text.slice(0, colon).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return undefined;
  return [name, text.slice(colon + 1).trim()];
}

export async function connectWithin(
  client: EngineClient,
  options: {
    url: string;
    stdio?: StdioReceiver;
    headers: Record<string, string>;
    era: EraChoice;
    timeoutMs: number;
  },
): Promise<Connected | NotConnected> {
  const deadline = Date.now() + options.timeoutMs;
  // A stdio server runs for this command only: the client stops it when it closes.
  const stdio = options.stdio ? await openStdio(options.stdio, () => client.interruptHandled) : undefined;
  if (stdio) {
    client.alsoClose(stdio.close);
    client.stdioEnded = stdio.ended;
  }
  client.url = stdio?.url ?? options.url;
  const reply = await client.request({
    type: 'connect',
    connectionId: 1,
    url: stdio?.url ?? options.url,
    stdio: stdio?.route,
    headers: options.headers,
    settings: { paused: false, minPollIntervalMs: 0 },
    preserve: false,
    era: options.era,
  });
  if (reply.ok) return { ok: true, server: reply.server, support: reply.support };
  if (reply.stale) return { ok: false, reason: 'the connection was replaced' };
  // Refused for good (not MCP, auth, a web page): the engine tries no more.
  if (client.health?.status === 'error')
    return { ok: false, reason: reply.error.message, error: reply.error };
  // Unreachable for now: the engine tries again on its backoff; its next health says how that went.
  return client.until<Connected | NotConnected>(
    () => {
      const health = client.health;
      if (health?.status === 'connected' && health.server && health.support)
        return { ok: true, server: health.server, support: health.support };
      if (health?.status === 'error')
        return { ok: false, reason: health.error?.message ?? 'refused', error: health.error };
      return undefined;
    },
    Math.max(0, deadline - Date.now()),
    () => ({
      ok: false,
      reason: `no answer within ${Math.round(options.timeoutMs / 1000)} s: ${client.health?.error?.message ?? reply.error.message}`,
      error: client.health?.error ?? reply.error,
    }),
  );
}
