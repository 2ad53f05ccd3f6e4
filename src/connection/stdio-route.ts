import { create } from 'zustand';
import { STDIO_CONNECTION_HEADER, RELAY_HEADERS, type StdioRoute } from '../mcp';
import { fetchServerToken } from './relay-route';

/** The stdio server this tab is connected to through Taskscope's bridge, if any: what its console shows. */
export interface StdioConnection {
  /** The receiver URL, /stdio/<name>/mcp on this origin. */
  url: string;
  name: string;
  route: StdioRoute;
}

export const useStdio = create<{ current?: StdioConnection }>()(() => ({}));

const KEPT_KEY = 'taskscope.stdioConnection';

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
 * this tab had before (before a reload, too) is stopped, so a tab runs one process at a time.
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
  sessionStorage.setItem(KEPT_KEY, JSON.stringify({ url, name, connection: current.route.connection }));
  return { ok: true, route: current.route };
}

/** Stops this tab's stdio process, if it has one (Disconnect, another receiver, Restart). */
export async function closeStdio(): Promise<void> {
  const current = useStdio.getState().current ?? (await keptFromBeforeReload());
  useStdio.setState({ current: undefined });
  sessionStorage.removeItem(KEPT_KEY);
  if (!current) return;
  try {
    await fetch(new URL(`/stdio/${current.name}/stop`, window.location.origin), {
      method: 'POST',
      headers: bridgeHeaders(current.route),
      credentials: 'omit',
    });
  } catch {
    // The server is gone, and its processes with it.
  }
}

/** The connection this tab had before a reload: its process is this tab's to stop. */
async function keptFromBeforeReload(): Promise<StdioConnection | undefined> {
  const raw = sessionStorage.getItem(KEPT_KEY);
  if (!raw) return undefined;
  try {
    const kept = JSON.parse(raw) as { url?: unknown; name?: unknown; connection?: unknown };
    if (typeof kept.url !== 'string' || typeof kept.name !== 'string' || typeof kept.connection !== 'string')
      return undefined;
    const token = await fetchServerToken();
    if (!token.ok) return undefined;
    return { url: kept.url, name: kept.name, route: { token: token.token, connection: kept.connection } };
  } catch {
    return undefined;
  }
}
