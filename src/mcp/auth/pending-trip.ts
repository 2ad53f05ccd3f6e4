import { endpointRefusal } from './discovery';
import type { Pending } from './grant';
import type { AuthStep, ClientKind, PendingSignIn } from './types';

/** How long a same-tab round trip may take before what it kept is no longer taken up. */
export const PENDING_TRIP_MS = 10 * 60_000;
const MAX_TRIP_STEPS = 50;

/**
 * A sign-in waiting for its callback, as the same-tab round trip keeps it: the Worker that holds the PKCE
 * verifier ends with the navigation to the authorization page, so the page keeps it in sessionStorage for that
 * one trip. State, verifier, the metadata found and the client — never a token (there is none yet).
 */
export function pendingForTrip(
  pending: Pending,
  at: {
    kind: ClientKind | undefined;
    receiverUrl: string;
    redirectUri: string;
    steps: AuthStep[];
    now: number;
  },
): PendingSignIn {
  return {
    version: 1,
    receiverUrl: at.receiverUrl,
    redirectUri: at.redirectUri,
    savedAt: at.now,
    pending: { ...pending, kind: at.kind },
    steps: at.steps.slice(-MAX_TRIP_STEPS),
  };
}

/**
 * A kept pending sign-in taken up by the new Worker: it comes from this tab's storage, so its shape is checked
 * and its endpoints vetted again (whatever can write the storage must not aim the code and verifier elsewhere).
 */
export function pendingFromTrip(
  saved: PendingSignIn,
  at: { receiverUrl: string; redirectUri: string; now: number },
): { pending: Pending; kind: ClientKind; steps: AuthStep[] } | undefined {
  const p = saved.pending as Partial<Pending & { kind: ClientKind }> | undefined;
  const age = at.now - saved.savedAt;
  if (
    saved.version !== 1 ||
    saved.receiverUrl !== at.receiverUrl ||
    saved.redirectUri !== at.redirectUri ||
    !(age >= 0 && age < PENDING_TRIP_MS)
  )
    return undefined;
  const { state, codeVerifier, discovered, client } = p ?? {};
  if (
    typeof state !== 'string' ||
    typeof codeVerifier !== 'string' ||
    typeof discovered?.authorizationServerUrl !== 'string' ||
    typeof discovered.resource !== 'string' ||
    typeof client?.client_id !== 'string'
  )
    return undefined;
  for (const url of [discovered.authorizationServerUrl, discovered.metadata?.token_endpoint])
    if (url !== undefined && (typeof url !== 'string' || endpointRefusal(url, at.receiverUrl) !== undefined))
      return undefined;
  const steps = Array.isArray(saved.steps)
    ? saved.steps
        .slice(-MAX_TRIP_STEPS)
        .filter(
          (s): s is AuthStep =>
            typeof s === 'object' &&
            s !== null &&
            typeof (s as AuthStep).kind === 'string' &&
            typeof (s as AuthStep).summary === 'string' &&
            Array.isArray((s as AuthStep).exchanges),
        )
    : [];
  const kind: ClientKind =
    p?.kind === 'pre-registered' || p?.kind === 'metadata-document' ? p.kind : 'dynamic';
  return {
    pending: { state, codeVerifier, discovered, client },
    kind,
    steps,
  };
}
