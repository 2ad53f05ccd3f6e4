import { exchangeAuthorization, refreshAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { SignInWaiters } from './authorized-fetch';
import { checkCallback } from './callback-check';
import { KnownClients } from './client-identity';
import { AuthFailure, type Challenge, type Discovered } from './discovery';
import { recordingFetch } from './exchanges';
import { describeSignIn, grantOf, type Grant, type Pending } from './grant';
import { OriginGate } from './origin-gate';
import { tokenRefused } from './refusals';
import { startSignIn } from './sign-in-start';
import { StepLog } from './step-log';
import type {
  AuthCallback,
  AuthClientChoice,
  AuthExchange,
  AuthStepKind,
  AuthView,
  ClientKind,
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
 * Getting a grant for one receiver, on the SDK's client auth functions (discovery, registration, PKCE, token
 * requests): from a challenge to an authorization URL, the callback to tokens, and their refresh, every step
 * written down for the person. AuthClient (auth-client.ts) builds on it: the token on each request, step-up,
 * remembering and the same-tab round trip. Tokens never leave them except in an Authorization header.
 */
export class SignInFlow {
  onChange?: (view: AuthView) => void;
  /** Each HTTP exchange of the flow as it ends (redacted): the traffic panel shows them as sign-in traffic. */
  onExchange?: (exchange: AuthExchange) => void;
  protected status: AuthView['status'] = 'none';
  protected error: string | undefined;
  /** The last failure can be got past only with a client identity the person enters. */
  protected clientNeeded = false;
  /** What a step-up asks for beyond the grant, while it waits for the person. */
  protected missingScopes: string[] | undefined;
  protected readonly log: StepLog;
  protected pending: Pending | undefined;
  protected grant: Grant | undefined;
  protected challenge: Challenge | undefined;
  protected refreshing: Promise<boolean> | undefined;
  protected preparing: Promise<void> | undefined;
  protected stepUps = 0;
  /** Bumped by signOut: a refresh or a code exchange that was under way then must not sign the person back in. */
  protected signOuts = 0;
  /** The state whose code is being exchanged right now. */
  protected exchanging: string | undefined;
  protected readonly clients = new KnownClients();
  protected readonly waiters = new SignInWaiters();
  protected readonly flowFetch: typeof fetch;
  protected readonly gate: OriginGate;
  protected base: typeof fetch;
  protected readonly now: () => number;

  constructor(protected readonly options: AuthClientOptions) {
    this.now = options.now ?? Date.now;
    this.log = new StepLog(this.now);
    this.base = options.fetch;
    this.gate = new OriginGate(options.receiverUrl, () => this.changed());
    const recorded = recordingFetch(
      (input, init) => this.base(input, init),
      () => this.log.exchanges,
      this.now,
      (exchange) => this.onExchange?.(exchange),
    );
    // The gate first: a request to an origin the person did not allow never goes out, nor is it recorded.
    this.flowFetch = async (input, init) => {
      await this.gate.pass(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      return recorded(input, init);
    };
  }

  /** The person's answer to "contact this origin?" (see OriginGate). */
  confirmOrigin(origin: string, allow: boolean): boolean {
    return this.gate.answer(origin, allow);
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
      status: this.gate.pending ? 'confirm-origin' : this.status,
      confirmOrigin: this.gate.pending,
      error: this.error,
      clientNeeded: this.clientNeeded,
      missingScopes: this.missingScopes,
      steps: this.log.steps,
      pending: this.pending,
      grant: this.grant,
      authorizationUrl: this.authorizationUrl,
      receiverUrl: this.options.receiverUrl,
      kindOf: (server) => this.clients.kindOf(server),
    });
  }

  protected authorizationUrl: string | undefined;

  protected changed(): void {
    this.onChange?.(this.view());
  }

  protected fail(kind: AuthStepKind, error: unknown): void {
    const why = error instanceof Error ? error.message : String(error);
    const failure = error instanceof AuthFailure ? error : undefined;
    const spec = failure?.spec;
    this.log.add(kind, false, failure?.extra.summary ?? 'Failed', { why, spec });
    this.error = spec ? `${why} — ${spec}` : why;
    this.clientNeeded = failure?.extra.needs === 'client';
    this.missingScopes = undefined;
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

  protected async doPrepare(stepUp: boolean): Promise<void> {
    this.error = undefined;
    this.clientNeeded = false;
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
        clientFor: (discovered) =>
          this.clients.for(
            discovered,
            {
              choice: this.options.choice ?? {},
              redirectUri: this.options.redirectUri,
              fetchFn: this.flowFetch,
            },
            this.log,
          ),
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

  /** A sign-in made before (remembered, or kept over a same-tab trip): its client known, its origins allowed. */
  protected adopt(discovered: Discovered, client: OAuthClientInformationMixed, kind: ClientKind): void {
    this.gate.allow(discovered.authorizationServerUrl, discovered.metadata?.token_endpoint);
    this.clients.set(discovered.authorizationServerUrl, client, kind);
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
      this.fail('token', this.explainTokenRefusal(error, pending));
      this.waiters.settle(false);
      return false;
    } finally {
      this.exchanging = undefined;
    }
  }

  /** The token endpoint's refusal said with its reason, from the exchange just made (still the step's last). */
  protected explainTokenRefusal(
    error: unknown,
    at: { discovered: Discovered; client: OAuthClientInformationMixed },
  ): unknown {
    return tokenRefused(error, {
      exchange: this.log.exchanges.at(-1),
      discovered: at.discovered,
      client: at.client,
      kind: this.clients.kindOf(at.discovered.authorizationServerUrl),
    });
  }

  protected take(tokens: OAuthTokens, discovered: Discovered, client: OAuthClientInformationMixed): void {
    this.grant = grantOf(tokens, discovered, client, this.now());
    this.challenge = undefined;
    this.error = undefined;
    this.missingScopes = undefined;
    this.status = 'signed-in';
  }

  /** One refresh at a time; everyone who needs a token waits for it. */
  refresh(): Promise<boolean> {
    this.refreshing ??= this.doRefresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  protected async doRefresh(): Promise<boolean> {
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
      this.fail('refresh', this.explainTokenRefusal(error, grant));
      return false;
    }
  }
}
