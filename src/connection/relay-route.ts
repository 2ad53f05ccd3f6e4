import type { RelayRoute } from '../mcp';

/**
 * The local relay's route, from Taskscope's own server: the token is asked for same-origin, with a header a
 * cross-origin page cannot send without a preflight the server never answers. It is kept in memory only.
 */
export async function fetchRelayRoute(): Promise<
  { ok: true; route: RelayRoute } | { ok: false; message: string }
> {
  const failed = {
    ok: false as const,
    message:
      'The local relay is not available: it runs in the server `npm start` starts, so open Taskscope from there.',
  };
  try {
    const response = await fetch('/relay/token', {
      headers: { 'X-Taskscope-Token-Request': '1' },
      cache: 'no-store',
      credentials: 'omit',
    });
    if (!response.ok) return failed;
    const body = (await response.json()) as { token?: unknown };
    if (typeof body.token !== 'string' || body.token.length > 200) return failed;
    return {
      ok: true,
      route: { url: new URL('/relay', window.location.origin).toString(), token: body.token },
    };
  } catch {
    return failed;
  }
}
