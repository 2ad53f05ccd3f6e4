import { exchangeAuthorization, refreshAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import { StepLog } from './step-log';
import { startSignIn } from './sign-in-start';
import { authorizedFetch, SignInWaiters } from './authorized-fetch';
import { checkCallback } from './callback-check';
import { chooseClient } from './client-identity';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { AuthFailure, type Challenge, type Discovered } from './discovery';

export { readChallenge } from './challenge';
import { recordingFetch } from './exchanges';
import { describeSignIn, grantOf, rememberSignIn, restoredGrant, type Grant, type Pending } from './grant';
import type {
  AuthCallback,
  AuthClientChoice,
  AuthExchange,
  AuthStepKind,
  AuthView,
  ClientKind,
  RememberedSignIn,
} from './types';

/** Refresh this long before the token runs out, so a poll never goes with a token about to die. */
export const REFRESH_AHEAD_MS = 10_000;
/** Step-ups for one connection: a receiver that keeps asking for more after it was granted makes no loop. */
export const MAX_STEP_UPS = 3;
/** How long a request waits for the person to finish a step-up before it goes on with the 403. */
export const STEP_UP_WAIT_MS = 5 * 60_000;

export interface AuthClientOptions {
  receiverUrl: string;
  /** Taskscope's own /oauth/callback. */
  redirectUri: string;
  choice?: AuthClientChoice;
  /** Direct, or through the relay: the flow's requests go the way the receiver's do. */
  fetch: typeof fetch;
  now?: () => number;
}

/**
 * One receiver's sign-in, on the SDK's client auth functions (discovery, registration, PKCE, token requests):
 * this class is the glue — when to start, the state it keeps in memory, refresh and step-up around each MCP
 * request, and every step written down for the person. Tokens never leave it except in an Authorization header.
 */
export class AuthClient {
  onChange?: (view: AuthView) => void;
  /** Each HTTP exchange of the flow as it ends (redacted): the traffic panel shows them as sign-in traffic. */
  onExchange?: (exchange: AuthExchange) => void;
  private status: AuthView['status'] = 'none';
  private error: string | undefined;
  private readonly log: StepLog;
  private pending: Pending | undefined;
  private grant: Grant | undefined;
  private challenge: Challenge | undefined;
  private refreshing: Promise<boolean> | undefined;
  private preparing: Promise<void> | undefined;
  private stepUps = 0;
  /** Bumped by signOut: a refresh or a code exchange that was under way then must not sign the person back in. */
  private signOuts = 0;
  /** The state whose code is being exchanged right now. */
  private exchanging: string | undefined;
  private readonly clients = new Map<string, { info: OAuthClientInformationMixed; kind: ClientKind }>();
  private readonly waiters = new SignInWaiters();
  private readonly flowFetch: typeof fetch;
  private base: typeof fetch;
  private readonly now: () => number;

  constructor(private readonly options: AuthClientOptions) {
    this.now = options.now ?? Date.now;
    this.log = new StepLog(this.now);
    this.base = options.fetch;
    this.flowFetch = recordingFetch(
      (input, init) => this.base(input, init),
      () => this.log.exchanges,
      this.now,
      (exchange) => this.onExchange?.(exchange),
    );
  }

  /** The way to the receiver changed (a new relay token after a restart): the flow's requests follow it. */
  useFetch(base: typeof fetch): void {
    this.base = base;
  }

  /** Whether this sign-in was set up for the same redirect and client choice (else a new one is needed). */
  fits(redirectUri: string, choice: AuthClientChoice | undefined): boolean {
    return (
      redirectUri === this.options.redirectUri &&
      JSON.stringify(choice ?? {}) === JSON.stringify(this.options.choice ?? {})
    );
  }

  get signedIn(): boolean {
    return this.grant !== undefined;
  }

  /** The challenge of the last 401, when one came and no token answered it. */
  get needsSignIn(): boolean {
    return this.challenge !== undefined && this.grant === undefined;
  }

  view(): AuthView {
    return describeSignIn({
      status: this.status,
      error: this.error,
      steps: this.log.steps,
      pending: this.pending,
      grant: this.grant,
      authorizationUrl: this.authorizationUrl,
      receiverUrl: this.options.receiverUrl,
      kindOf: (server) => this.clients.get(server)?.kind,
    });
  }

  private authorizationUrl: string | undefined;

  private changed(): void {
    this.onChange?.(this.view());
  }

  private fail(kind: AuthStepKind, error: unknown): void {
    const why = error instanceof Error ? error.message : String(error);
    const spec = error instanceof AuthFailure ? error.spec : undefined;
    this.log.add(kind, false, 'Failed', { why, spec });
    this.error = spec ? `${why} — ${spec}` : why;
    this.status = 'failed';
    this.changed();
  }

  /**
   * Reads a 401's challenge and gets everything ready for the person to sign in: discovery, the client,
   * PKCE and state. The authorization URL then waits in the view for the person's click (a popup needs one).
   */
  async prepare(challenge?: Challenge, stepUp = false): Promise<void> {
    if (challenge) this.challenge = challenge;
    this.preparing ??= this.doPrepare(stepUp).finally(() => (this.preparing = undefined));
    return this.preparing;
  }

  private async doPrepare(stepUp: boolean): Promise<void> {
    this.error = undefined;
    const progress = { phase: 'challenge' as AuthStepKind };
    try {
      const { authorizationUrl, ...pending } = await startSignIn({
        receiverUrl: this.options.receiverUrl,
        redirectUri: this.options.redirectUri,
        challenge: this.challenge ?? {},
        grantedScope: stepUp ? this.grant?.tokens.scope : undefined,
        stepUp,
        fetchFn: this.flowFetch,
        log: this.log,
        clientFor: (discovered) => this.clientFor(discovered),
        progress,
      });
      this.pending = pending;
      this.authorizationUrl = authorizationUrl.href;
      this.status = stepUp ? 'step-up-needed' : 'sign-in-needed';
      this.changed();
    } catch (error) {
      this.fail(progress.phase, error);
      this.waiters.settle(false);
    }
  }

  private async clientFor(discovered: Discovered): Promise<OAuthClientInformationMixed> {
    const key = discovered.authorizationServerUrl;
    const known = this.clients.get(key);
    if (known) return known.info;
    const { info, kind, summary, spec } = await chooseClient(discovered, {
      choice: this.options.choice ?? {},
      redirectUri: this.options.redirectUri,
      fetchFn: this.flowFetch,
    });
    this.log.add('client', true, summary, { spec });
    this.clients.set(key, { info, kind });
    return info;
  }

  /** The callback came back (popup or same tab): state and iss checked, the code exchanged for tokens. */
  async finish(callback: AuthCallback): Promise<boolean> {
    const pending = this.pending;
    // A code is exchanged once: a second callback with the same state (a reload of the callback page) must
    // not spend it again and fail over a grant that succeeded.
    if (pending && callback.state === pending.state && this.exchanging === pending.state) return false;
    if (!pending || callback.state !== pending.state) {
      this.log.add('callback', false, 'A callback for another sign-in', {
        why: 'Its state is not the one sent',
        spec: 'OAuth 2.1 §7.12',
      });
      this.changed();
      return false;
    }
    let code: string;
    try {
      code = checkCallback(callback, pending);
      this.log.add('callback', true, `Code received, state matches${callback.iss ? ', iss matches' : ''}`, {
        spec: 'RFC 9207',
      });
    } catch (error) {
      this.pending = undefined;
      this.fail('callback', error);
      this.waiters.settle(false);
      return false;
    }
    this.status = 'signing-in';
    this.changed();
    const signOuts = this.signOuts;
    this.exchanging = pending.state;
    try {
      const tokens = await exchangeAuthorization(pending.discovered.authorizationServerUrl, {
        metadata: pending.discovered.metadata,
        clientInformation: pending.client,
        authorizationCode: code,
        codeVerifier: pending.codeVerifier,
        redirectUri: this.options.redirectUri,
        resource: pending.discovered.resource,
        fetchFn: this.flowFetch,
      });
      if (this.signOuts !== signOuts) return false;
      this.pending = undefined;
      this.authorizationUrl = undefined;
      this.take(tokens, pending.discovered, pending.client);
      this.log.add(
        'token',
        true,
        `Signed in: ${tokens.scope ?? 'scope not named'}, ${tokens.expires_in ?? '?'} s${tokens.refresh_token ? ', with a refresh token' : ''}`,
        { spec: 'OAuth 2.1 §4.1.3' },
      );
      this.changed();
      this.waiters.settle(true);
      return true;
    } catch (error) {
      this.pending = undefined;
      this.fail('token', error);
      this.waiters.settle(false);
      return false;
    } finally {
      this.exchanging = undefined;
    }
  }

  private take(tokens: OAuthTokens, discovered: Discovered, client: OAuthClientInformationMixed): void {
    this.grant = grantOf(tokens, discovered, client, this.now());
    this.challenge = undefined;
    this.error = undefined;
    this.status = 'signed-in';
  }

  /** One refresh at a time; everyone who needs a token waits for it. */
  refresh(): Promise<boolean> {
    this.refreshing ??= this.doRefresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async doRefresh(): Promise<boolean> {
    const grant = this.grant;
    if (!grant?.tokens.refresh_token) return false;
    const signOuts = this.signOuts;
    try {
      const tokens = await refreshAuthorization(grant.discovered.authorizationServerUrl, {
        metadata: grant.discovered.metadata,
        clientInformation: grant.client,
        refreshToken: grant.tokens.refresh_token,
        resource: grant.discovered.resource,
        fetchFn: this.flowFetch,
      });
      // Signed out meanwhile: what the server granted before that is not taken up.
      if (this.signOuts !== signOuts) return false;
      this.take(tokens, grant.discovered, grant.client);
      this.log.add('refresh', true, `Refreshed: ${tokens.expires_in ?? '?'} s more`, {
        spec: 'OAuth 2.1 §4.3',
      });
      this.changed();
      return true;
    } catch (error) {
      if (this.signOuts !== signOuts) return false;
      this.grant = undefined;
      this.fail('refresh', error);
      return false;
    }
  }

  /** The sign-in as "Remember sign-in" keeps it; undefined when not signed in. */
  remembered(): RememberedSignIn | undefined {
    if (!this.grant) return undefined;
    const kind = this.clients.get(this.grant.discovered.authorizationServerUrl)?.kind;
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
    this.clients.set(restored.grant.discovered.authorizationServerUrl, {
      info: restored.grant.client,
      kind: restored.kind,
    });
    this.status = 'signed-in';
    this.log.add(
      'token',
      true,
      `Signed in from the sign-in remembered in this browser (${remembered.issuer})`,
    );
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
    if (this.stepUps >= MAX_STEP_UPS) {
      this.fail(
        'step-up',
        new AuthFailure(
          `The receiver still asks for more scope (${challenge.scope ?? 'not named'}) after ${MAX_STEP_UPS} step-ups: giving up`,
          'MCP authorization, Step-Up Authorization',
        ),
      );
      return false;
    }
    this.stepUps++;
    this.log.add(
      'step-up',
      true,
      `HTTP 403 insufficient_scope: the receiver asks for ${challenge.scope ?? 'more scope'}`,
      {
        spec: 'MCP authorization, Step-Up Authorization',
      },
    );
    const waiting = this.waiters.wait(signal, STEP_UP_WAIT_MS);
    await this.prepare(challenge, true);
    return waiting;
  }
}
