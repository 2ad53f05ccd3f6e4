import { getEngine } from '../bridge/engine-bridge';
import type { AuthCallback, AuthClientChoice, PendingSignIn } from '../mcp';
import { useSignIn } from './sign-in-store';
import { useConnection } from '../state/connection-store';
import { safeHref } from '../ui/safe-url';
import { setSignInRemembered } from './remembered-sign-ins';

/** Taskscope's own redirect URI: the page at this path hands the code over and closes. */
export const CALLBACK_PATH = '/oauth/callback';
/** The callback speaks on a channel named by its state, so only the sign-in that sent that state hears it. */
export const CALLBACK_CHANNEL_PREFIX = 'taskscope-oauth:';
/** A sign-in nobody finishes within this long stops listening. */
const LISTEN_MS = 10 * 60_000;

export const callbackUri = () => `${window.location.origin}${CALLBACK_PATH}`;

const listening = new Map<string, () => void>();

/** What the callback page posted, if it has the shape it should: strings only, nothing else kept. */
export function callbackFrom(data: unknown): AuthCallback | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v.length <= 4096 ? v : undefined);
  const state = text(d.state);
  if (!state) return undefined;
  return {
    state,
    code: text(d.code),
    iss: text(d.iss),
    error: text(d.error),
    errorDescription: text(d.errorDescription),
  };
}

/** Hears the callback for `state` once, and hands it to the engine (which checks state, iss, and exchanges the code). */
function listenFor(state: string): void {
  if (listening.has(state)) return;
  const channel = new BroadcastChannel(`${CALLBACK_CHANNEL_PREFIX}${state}`);
  const stop = () => {
    clearTimeout(timer);
    channel.close();
    listening.delete(state);
  };
  const timer = setTimeout(stop, LISTEN_MS);
  listening.set(state, stop);
  channel.onmessage = (event: MessageEvent) => {
    const callback = callbackFrom(event.data);
    if (!callback || callback.state !== state) return;
    stop();
    useSignIn.setState({ blockedUrl: undefined });
    void getEngine().request({ type: 'authCallback', callback });
  };
}

/**
 * Opens the authorization page in a popup (a click's work: browsers block popups without one). The callback
 * comes back over a BroadcastChannel, not window.opener, which many authorization servers cut
 * (Cross-Origin-Opener-Policy). A blocked popup leaves a link to open the page in a new tab instead.
 */
export function signIn(): void {
  const { auth } = useConnection.getState();
  if (!auth?.authorizationUrl || !auth.state) return;
  listenFor(auth.state);
  // Opened blank (our origin) first, so its opener can be cut before the authorization server's page loads:
  // that page comes from metadata the receiver controls and must not be able to navigate this tab.
  // Named per sign-in: an earlier popup still on the authorization server's page is another origin, whose
  // opener could not be cut (and whose name would be reused).
  const popup = window.open('about:blank', `taskscope-sign-in-${auth.state}`, 'popup,width=520,height=720');
  if (popup) {
    popup.opener = null;
    popup.location.href = auth.authorizationUrl;
    useSignIn.setState({ blockedUrl: undefined });
    return;
  }
  void signInHere(auth.authorizationUrl, auth.state);
}

/**
 * No popup (a blocker said no): the authorization page opens in this tab. The Worker holding the PKCE verifier
 * ends with the navigation, so the pending sign-in goes to sessionStorage for this one round trip, with the
 * address to come back to; the callback page takes it (and clears it) and the page starts again from there
 * (app/oauth-callback.ts). Without storage, a link opens the sign-in in a new tab instead.
 */
async function signInHere(authorizationUrl: string, state: string): Promise<void> {
  // The URL comes from metadata the receiver controls (vetted in the engine): only an http(s) page is opened.
  const target = safeHref(authorizationUrl);
  if (!target?.startsWith('http')) return;
  const trip = await getEngine().request({ type: 'pendingSignIn' });
  const kept: SameTabTrip | undefined = trip
    ? { trip, returnTo: `${location.pathname}${location.search}${location.hash}` }
    : undefined;
  try {
    if (!kept || !isTripOf(kept, state)) throw new Error('no sign-in waiting for this state');
    sessionStorage.setItem(SAME_TAB_KEY, JSON.stringify(kept));
  } catch {
    useSignIn.setState({ blockedUrl: authorizationUrl });
    return;
  }
  for (const stop of listening.values()) stop();
  window.location.assign(target);
}

/** Where a same-tab sign-in keeps its pending sign-in for the round trip (see signInHere). */
export const SAME_TAB_KEY = 'taskscope-sign-in-trip';

export interface SameTabTrip {
  trip: PendingSignIn;
  /** The page's own address (path, query, hash) to come back to. */
  returnTo: string;
}

function isTripOf(kept: SameTabTrip, state: string): boolean {
  return (kept.trip.pending as { state?: unknown } | null)?.state === state;
}

/**
 * The kept trip, when this callback is its own (the same state): taken off storage whatever it holds, so the
 * verifier lives no longer than the one round trip. The address to come back to is this origin's own path.
 */
export function takeSameTabTrip(state: string | null): SameTabTrip | undefined {
  let kept: SameTabTrip | undefined;
  try {
    const raw = sessionStorage.getItem(SAME_TAB_KEY);
    sessionStorage.removeItem(SAME_TAB_KEY);
    kept = raw ? (JSON.parse(raw) as SameTabTrip) : undefined;
  } catch {
    return undefined;
  }
  if (!kept || typeof kept !== 'object' || state === null || !isTripOf(kept, state)) return undefined;
  const back = typeof kept.returnTo === 'string' ? kept.returnTo : '/';
  const sameOrigin = back.startsWith('/') && !back.startsWith('//') && !back.startsWith('/\\');
  return { trip: kept.trip, returnTo: sameOrigin && !back.startsWith(CALLBACK_PATH) ? back : '/' };
}

/** A trip never finished (the person came back another way): nothing of it stays. */
export function forgetSameTabTrip(): void {
  try {
    sessionStorage.removeItem(SAME_TAB_KEY);
  } catch {
    // No storage: nothing was kept.
  }
}

/** After Sign out or a failure: the engine gets a new sign-in ready (discovery again, a new state). */
export async function prepareSignIn(): Promise<void> {
  await getEngine().request({ type: 'signIn' });
}

/** The person's answer to "contact this origin?": the flow goes on, or fails saying it was not allowed. */
export async function confirmOrigin(origin: string, allow: boolean): Promise<void> {
  await getEngine().request({ type: 'confirmOrigin', origin, allow });
}

export async function signOut(): Promise<void> {
  for (const stop of listening.values()) stop();
  useSignIn.setState({ blockedUrl: undefined });
  await getEngine().request({ type: 'signOut' });
}

/** "Remember sign-in" for the current receiver: the engine sends the sign-in (or null) to store from now on. */
export async function rememberSignIn(on: boolean): Promise<void> {
  setSignInRemembered(useConnection.getState().url, on);
  useSignIn.setState((s) => ({ rememberTick: s.rememberTick + 1 }));
  await getEngine().request({ type: 'rememberSignIn', on });
}

/** The client identity the person had chosen, read back from a kept trip: the form comes back as it was. */
export function choiceOfTrip(trip: PendingSignIn): AuthClientChoice | undefined {
  const p = trip.pending as {
    kind?: unknown;
    client?: { client_id?: unknown; client_secret?: unknown };
  } | null;
  const id = p?.client?.client_id;
  if (typeof id !== 'string') return undefined;
  if (p?.kind === 'pre-registered') {
    const secret = p.client?.client_secret;
    return { clientId: id, ...(typeof secret === 'string' ? { clientSecret: secret } : {}) };
  }
  return p?.kind === 'metadata-document' ? { clientMetadataUrl: id } : undefined;
}
