import {
  CALLBACK_CHANNEL_PREFIX,
  CALLBACK_PATH,
  callbackFrom,
  takeSameTabTrip,
} from '../receiver/auth-actions';
import type { AuthCallback, PendingSignIn } from '../mcp';

export const isOAuthCallback = (location: Location = window.location) => location.pathname === CALLBACK_PATH;

/**
 * The redirect URI's page: takes the code off the address at once (no history entry, no Referer keeps it),
 * hands code, state and iss to the page that asked over a BroadcastChannel named by the state, and closes.
 * No engine and no app start here.
 */
export function handleOAuthCallback(): void {
  const query = new URLSearchParams(window.location.search);
  window.history.replaceState(null, '', CALLBACK_PATH);
  const state = query.get('state');
  const root = document.getElementById('root');
  const say = (text: string) => {
    if (root) root.textContent = text;
  };
  if (!state) {
    say('This sign-in answer carries no state, so Taskscope cannot tell which sign-in it belongs to.');
    return;
  }
  const channel = new BroadcastChannel(`${CALLBACK_CHANNEL_PREFIX}${state}`);
  channel.postMessage({
    state,
    code: query.get('code') ?? undefined,
    iss: query.get('iss') ?? undefined,
    error: query.get('error') ?? undefined,
    errorDescription: query.get('error_description') ?? undefined,
  });
  channel.close();
  say(
    query.get('error')
      ? `The authorization server said ${query.get('error')}: Taskscope shows why. You can close this window.`
      : 'Signed in: Taskscope takes it from here. You can close this window.',
  );
  window.close();
}

/**
 * Back from a sign-in that went in this very tab (no popup): the trip it kept is taken off storage, the code
 * off the address (which becomes the page's own again), and the callback is handed to the page that starts
 * here, never written anywhere. Undefined when this callback is not this tab's trip (then it is a popup's).
 */
export function sameTabReturn(): { trip: PendingSignIn; callback: AuthCallback } | undefined {
  const query = new URLSearchParams(window.location.search);
  const kept = takeSameTabTrip(query.get('state'));
  if (!kept) return undefined;
  window.history.replaceState(null, '', kept.returnTo);
  const callback = callbackFrom({
    state: query.get('state'),
    code: query.get('code') ?? undefined,
    iss: query.get('iss') ?? undefined,
    error: query.get('error') ?? undefined,
    errorDescription: query.get('error_description') ?? undefined,
  });
  return callback ? { trip: kept.trip, callback } : undefined;
}
