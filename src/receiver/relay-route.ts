import type { RelayRoute } from '../mcp';

const TOKEN_KEY = 'taskscope.serverToken';

/**
 * The per-start token of Taskscope's own server (the relay's and the stdio bridge's), asked for same-origin,
 * with a header a cross-origin page cannot send without a preflight the server never answers. Kept in memory.
 * When others can reach the server (`--allow-remote`) it hands the token to nobody: the person types in the one
 * printed on its terminal, once per tab.
 */
export async function fetchServerToken(): Promise<
  { ok: true; token: string } | { ok: false; message: string }
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
    if (response.headers.get('X-Taskscope-Token-Entry') === 'required') return enteredToken();
    if (!response.ok) return failed;
    const body = (await response.json()) as { token?: unknown };
    if (typeof body.token !== 'string' || body.token.length > 200) return failed;
    return { ok: true, token: body.token };
  } catch {
    return failed;
  }
}

function enteredToken(): { ok: true; token: string } | { ok: false; message: string } {
  const kept = sessionStorage.getItem(TOKEN_KEY);
  if (kept) return { ok: true, token: kept };
  const typed = window
    .prompt(
      'Taskscope was started with --allow-remote, so its token is not handed to pages. Enter the token it printed on its terminal:',
    )
    ?.trim();
  if (!typed || typed.length > 200)
    return {
      ok: false,
      message:
        'This needs the token Taskscope printed on its terminal (it was started with --allow-remote): connect again to enter it.',
    };
  sessionStorage.setItem(TOKEN_KEY, typed);
  return { ok: true, token: typed };
}

/** A token typed in that the server refused: asked for again on the next connect. */
export function forgetEnteredToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** The local relay's route, from Taskscope's own server. */
export async function fetchRelayRoute(): Promise<
  { ok: true; route: RelayRoute } | { ok: false; message: string }
> {
  const token = await fetchServerToken();
  if (!token.ok) return token;
  return {
    ok: true,
    route: { url: new URL('/relay', window.location.origin).toString(), token: token.token },
  };
}
