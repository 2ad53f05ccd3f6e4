import { authorizedFetch } from './authorized-fetch';
import type { Challenge } from './discovery';
import { AuthFailure } from './discovery';
import { missingScopes, rememberSignIn, restoredGrant } from './grant';
import { pendingForTrip, pendingFromTrip } from './pending-trip';
import { MAX_STEP_UPS, REFRESH_AHEAD_MS, STEP_UP_WAIT_MS, SignInFlow } from './sign-in-flow';
import type { PendingSignIn, RememberedSignIn } from './types';

export { readChallenge } from './challenge';
export { MAX_STEP_UPS, REFRESH_AHEAD_MS, STEP_UP_WAIT_MS, type AuthClientOptions } from './sign-in-flow';

/**
 * One receiver's sign-in as the connection uses it: the token on every request (refreshed when due), step-up
 * on 403 insufficient_scope, "Remember sign-in" and the same-tab round trip, over SignInFlow's grant.
 */
export class AuthClient extends SignInFlow {
  /** The sign-in as "Remember sign-in" keeps it; undefined when not signed in. */
  remembered(): RememberedSignIn | undefined {
    if (!this.grant) return undefined;
    const kind = this.clients.kindOf(this.grant.discovered.authorizationServerUrl);
    return rememberSignIn(this.grant, kind, this.options.receiverUrl);
  }

  /**
   * Takes up a remembered sign-in (from this browser's storage, so checked for shape): signed in at once; an
   * expired token is refreshed on the first request, and a refused refresh asks for a new sign-in.
   */
  restore(remembered: RememberedSignIn): boolean {
    const restored = restoredGrant(remembered, this.options.receiverUrl, this.options.choice);
    if (!restored || this.grant) return false;
    this.grant = restored.grant;
    // Allowed when the sign-in was made: a refresh asks nothing.
    this.adopt(restored.grant.discovered, restored.grant.client, restored.kind);
    this.status = 'signed-in';
    this.log.add(
      'token',
      true,
      `Signed in from the sign-in remembered in this browser (${remembered.issuer})`,
    );
    this.changed();
    return true;
  }

  /** The sign-in waiting for its callback, for a same-tab round trip (see pending-trip.ts); none once signed in. */
  pendingTrip(): PendingSignIn | undefined {
    if (!this.pending) return undefined;
    return pendingForTrip(this.pending, {
      kind: this.clients.kindOf(this.pending.discovered.authorizationServerUrl),
      receiverUrl: this.options.receiverUrl,
      redirectUri: this.options.redirectUri,
      steps: this.log.steps,
      now: this.now(),
    });
  }

  /**
   * Takes up the sign-in a same-tab round trip kept (checked, see pendingFromTrip), so that the callback the
   * page brings back finishes it here, in the new Worker, as it would have in the old one.
   */
  resumeTrip(saved: PendingSignIn): boolean {
    if (this.grant || this.pending) return false;
    const taken = pendingFromTrip(saved, {
      receiverUrl: this.options.receiverUrl,
      redirectUri: this.options.redirectUri,
      now: this.now(),
    });
    if (!taken) return false;
    this.pending = taken.pending;
    this.adopt(taken.pending.discovered, taken.pending.client, taken.kind);
    this.log.restore(taken.steps);
    this.status = 'signing-in';
    this.changed();
    return true;
  }

  /** Forgets the tokens and the pending sign-in; the clients registered stay (they hold no secret of ours). */
  signOut(): void {
    this.signOuts++;
    this.stepUps = 0;
    this.grant = undefined;
    this.pending = undefined;
    this.authorizationUrl = undefined;
    this.challenge = undefined;
    this.status = 'none';
    this.error = undefined;
    this.clientNeeded = false;
    this.missingScopes = undefined;
    this.gate.cancel();
    this.log.add('sign-out', true, 'Signed out: tokens forgotten');
    this.waiters.settle(false);
    this.changed();
  }

  /** The fetch under an MCP session, with this sign-in's token, refresh and step-up (see authorizedFetch). */
  wrap(inner: typeof fetch): typeof fetch {
    return authorizedFetch(this, inner);
  }

  async tokenToSend(): Promise<string | undefined> {
    if (this.refreshing) await this.refreshing;
    else if (
      this.grant?.expiresAt !== undefined &&
      this.grant.expiresAt - this.now() < REFRESH_AHEAD_MS &&
      this.grant.tokens.refresh_token
    )
      await this.refresh();
    return this.grant?.tokens.access_token;
  }

  async tokenRefused(token: string): Promise<boolean> {
    if (!this.grant) return false;
    // Another request refreshed meanwhile: this one goes again with the new token.
    if (token !== this.grant.tokens.access_token) return true;
    return this.grant.tokens.refresh_token !== undefined && (await this.refresh());
  }

  signInAsked(challenge: Challenge, hadToken: boolean): void {
    if (hadToken) this.grant = undefined;
    if (!this.pending && !this.preparing) void this.prepare(challenge);
    else this.challenge = challenge;
  }

  /** Within MAX_STEP_UPS per connection: the request waits for the person's new grant, or gives up. */
  async stepUp(challenge: Challenge, signal: AbortSignal | null | undefined): Promise<boolean> {
    const granted = this.grant?.tokens.scope;
    const missing = missingScopes(challenge.scope, granted);
    // The scope the 403 names is often the whole set the call needs: the person is told what it lacks.
    const lacking =
      missing.length > 0
        ? missing.join(' ')
        : challenge.scope
          ? `nothing beyond the grant (it names ${challenge.scope})`
          : 'more scope, not named';
    if (this.stepUps >= MAX_STEP_UPS) {
      this.fail(
        'step-up',
        new AuthFailure(
          `The receiver still asks for more scope (lacking ${lacking}) after ${MAX_STEP_UPS} step-ups: giving up`,
          'MCP authorization, Step-Up Authorization',
        ),
      );
      return false;
    }
    this.stepUps++;
    this.log.add(
      'step-up',
      true,
      `HTTP 403 insufficient_scope: the request lacks ${lacking}; granted ${granted || 'no scope named'}`,
      {
        spec: 'MCP authorization, Step-Up Authorization',
      },
    );
    this.missingScopes = missing;
    const waiting = this.waiters.wait(signal, STEP_UP_WAIT_MS);
    await this.prepare(challenge, true);
    return waiting;
  }
}
