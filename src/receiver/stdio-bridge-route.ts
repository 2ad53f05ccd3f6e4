import { STDIO_CONNECTION_HEADER, RELAY_HEADERS, type StdioRoute } from '../mcp';
import { fetchServerToken } from './relay-route';
import { useStdio, type StdioConnection } from './stdio-store';

/** The name in a receiver URL that is one of this server's stdio bridges (/stdio/<name>/mcp, same origin). */
export function stdioNameOf(href: string): string | undefined {
  try {
    const url = new URL(href);
    if (url.origin !== window.location.origin || url.search !== '') return undefined;
    return /^\/stdio\/([A-Za-z0-9][A-Za-z0-9_.-]{0,63})\/mcp$/.exec(url.pathname)?.[1];
  } catch {
    return undefined;
  }
}

function newConnectionName(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** The headers every request to the bridge carries. */
export function bridgeHeaders(route: StdioRoute): Record<string, string> {
  return { [RELAY_HEADERS.token]: route.token, [STDIO_CONNECTION_HEADER]: route.connection };
}

/**
 * A new page connection to a stdio server: its own process, started by the bridge on the first request. The one
 * this tab had before is stopped, so a tab runs one process at a time.
 */
export async function openStdioRoute(
  url: string,
  name: string,
): Promise<{ ok: true; route: StdioRoute } | { ok: false; message: string }> {
  await closeStdio();
  const token = await fetchServerToken();
  if (!token.ok) return token;
  const current = { url, name, route: { token: token.token, connection: newConnectionName() } };
  useStdio.setState({ current });
  return { ok: true, route: current.route };
}

/** Stops this tab's stdio process, if it has one (Disconnect, another receiver, Restart). */
export async function closeStdio(): Promise<void> {
  const current = useStdio.getState().current;
  useStdio.setState({ current: undefined });
  if (current) await stop(current, false);
}

/**
 * The page is going away (reload, close): its process goes with it, the request kept alive past the page. Not
 * for a page kept in the back-forward cache, which may come back to it; the bridge stops what no page uses.
 */
export function stdioPageHiding(persisted: boolean): void {
  const current = useStdio.getState().current;
  if (current && !persisted) void stop(current, true);
}

async function stop(current: StdioConnection, keepalive: boolean): Promise<void> {
  try {
    await fetch(new URL(`/stdio/${current.name}/stop`, window.location.origin), {
      method: 'POST',
      headers: bridgeHeaders(current.route),
      credentials: 'omit',
      keepalive,
    });
  } catch {
    // The server is gone, and its processes with it.
  }
}
