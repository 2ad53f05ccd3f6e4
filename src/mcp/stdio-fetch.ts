import { StdioBridgeError } from './errors';
import { RELAY_HEADERS, relayErrorMessage } from './relay-fetch';

/**
 * How the page reaches a stdio server that Taskscope's own server runs (`taskscope --stdio`): at
 * /stdio/<name>/mcp on the page's origin, with the per-start token and the page connection's name, which
 * gives the connection a process of its own.
 */
export interface StdioRoute {
  /** The per-start token (the relay's); travels in a header only, never in a URL, traffic or history. */
  token: string;
  /** This page connection's name at the bridge: one process each. */
  connection: string;
}

export const STDIO_CONNECTION_HEADER = 'X-Taskscope-Stdio-Connection';

/**
 * A fetch that adds the bridge's headers below the traffic tap (which sees the receiver's request as sent),
 * and turns a refusal by the bridge itself (its process exited, too many running, a wrong token) into a
 * StdioBridgeError with the bridge's sentence.
 */
export function stdioFetch(base: typeof fetch, route: StdioRoute): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set(RELAY_HEADERS.token, route.token);
    headers.set(STDIO_CONNECTION_HEADER, route.connection);
    const response = await base(input, { ...init, headers, redirect: 'error' });
    if (!response.headers.has(RELAY_HEADERS.error)) return response;
    throw new StdioBridgeError(response.status, await relayErrorMessage(response));
  };
}
