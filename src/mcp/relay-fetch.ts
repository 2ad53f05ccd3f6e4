import { RelayRefusal } from './errors';

/** How the page reaches a receiver that does not allow its origin: through `npm start`'s own relay. */
export interface RelayRoute {
  /** The relay's URL on Taskscope's own origin (…/relay). */
  url: string;
  /** The per-start token; travels in a header only, never in a URL, traffic or history. */
  token: string;
}

export const RELAY_HEADERS = {
  token: 'X-Taskscope-Relay-Token',
  target: 'X-Taskscope-Target',
  forward: 'X-Taskscope-Forward',
  error: 'X-Taskscope-Relay-Error',
} as const;

/**
 * Headers the relay forwards by itself, the page and the relay reading the one list; the person's own
 * (Authorization, API keys) are named to it.
 */
export const RELAY_FORWARDED_HEADERS: readonly string[] = [
  'content-type',
  'accept',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'last-event-id',
];
const MCP_HEADERS = new Set(RELAY_FORWARDED_HEADERS);

/**
 * A fetch that sends each request to the relay instead, naming the receiver in a header. The SDK transport,
 * the traffic tap and the deadlines above it still see the receiver's URL, so nothing else changes. A refusal
 * by the relay itself becomes a RelayRefusal, and "could not reach" a network error, as a direct fetch has it.
 */
export function relayFetch(base: typeof fetch, route: RelayRoute): typeof fetch {
  return async (input, init) => {
    const target = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const headers = new Headers(init?.headers);
    const forward = [...headers.keys()].filter((name) => !MCP_HEADERS.has(name));
    headers.set(RELAY_HEADERS.token, route.token);
    headers.set(RELAY_HEADERS.target, target);
    if (forward.length > 0) headers.set(RELAY_HEADERS.forward, forward.join(', '));
    const response = await base(route.url, { ...init, headers, redirect: 'error' });
    if (!response.headers.has(RELAY_HEADERS.error)) return response;
    const message = await relayErrorMessage(response);
    if (/could not reach|refused|timed out|ENOTFOUND|ECONNREFUSED/i.test(message) && response.status >= 502)
      throw new TypeError(`Failed to fetch (through the local relay: ${message})`);
    throw new RelayRefusal(response.status, message);
  };
}

/** The sentence in a refusal by Taskscope's own server (the relay, the stdio bridge). */
export async function relayErrorMessage(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    const message = body.error?.message;
    return typeof message === 'string' ? message.slice(0, 500) : `HTTP ${response.status}`;
  } catch {
    return `HTTP ${response.status}`;
  }
}
