import {
  exchangeAuthorization,
  refreshAuthorization,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { cutText } from '../json';
import { readChallenge } from './challenge';
import { chooseClient } from './client-identity';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { AuthFailure, discover, type Challenge, type Discovered } from './discovery';

export { readChallenge } from './challenge';
import { recordingFetch } from './exchanges';
import {
  describeSignIn,
  grantOf,
  keptClient,
  randomState,
  rememberedGrant,
  type Grant,
  type Pending,
} from './grant';
import type {
  AuthCallback,
  AuthClientChoice,
  AuthExchange,
  AuthStep,
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
const MAX_STEPS = 200;
const MAX_STEP_TEXT = 1000;

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
  private steps: AuthStep[] = [];
  private seq = 0;
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
  private waiters: Array<(ok: boolean) => void> = [];
  private exchanges: AuthExchange[] = [];
  private readonly flowFetch: typeof fetch;
  private base: typeof fetch;
  private readonly now: () => number;

  constructor(private readonly options: AuthClientOptions) {
    this.now = options.now ?? Date.now;
    this.base = options.fetch;
    this.flowFetch = recordingFetch(
      (input, init) => this.base(input, init),
      () => this.exchanges,
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
      steps: this.steps,
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

  private step(
    kind: AuthStepKind,
    ok: boolean,
    summary: string,
    extra: { why?: string; spec?: string } = {},
  ): void {
    const exchanges = this.exchanges;
    this.exchanges = [];
    this.steps = [
      ...this.steps,
      // Summaries and reasons quote what the receiver and its authorization server sent: cut to what a line shows.
      {
        seq: ++this.seq,
        kind,
        at: this.now(),
        ok,
        summary: cutText(summary, MAX_STEP_TEXT),
        why: extra.why === undefined ? undefined : cutText(extra.why, MAX_STEP_TEXT),
        spec: extra.spec,
        exchanges,
      },
    ].slice(-MAX_STEPS);
  }

  private fail(kind: AuthStepKind, error: unknown): void {
    const why = error instanceof Error ? error.message : String(error);
    const spec = error instanceof AuthFailure ? error.spec : undefined;
    this.step(kind, false, 'Failed', { why, spec });
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
    const challenge = this.challenge ?? {};
    this.error = undefined;
    this.step(
      'challenge',
      true,
      `${stepUp ? 'HTTP 403' : 'HTTP 401'}: ${challenge.error ?? 'no error code'}; resource_metadata ${challenge.resourceMetadataUrl ?? 'not named'}; scope ${challenge.scope ?? 'not named'}`,
      challenge.resourceMetadataUrl
        ? { spec: 'RFC 9728 §5.1' }
        : {
            why: 'The challenge names no resource_metadata: the well-known URLs are tried',
            spec: 'RFC 9728 §5.1',
          },
    );
    let phase: AuthStepKind = 'resource-metadata';
    try {
      const discovered = await discover(
        this.options.receiverUrl,
        challenge,
        this.flowFetch,
        (ok, kind, summary, spec) => {
          phase = kind === 'resource-metadata' ? 'server-metadata' : 'client';
          this.step(kind, ok, summary, { spec });
        },
      );
      if (stepUp && this.grant?.tokens.scope) {
        const union = new Set(
          [...this.grant.tokens.scope.split(' '), ...(discovered.scope ?? '').split(' ')].filter(Boolean),
        );
        discovered.scope = [...union].join(' ');
      }
      phase = 'client';
      const client = await this.clientFor(discovered);
      phase = 'authorization';
      const state = randomState();
      const { authorizationUrl, codeVerifier } = await startAuthorization(discovered.authorizationServerUrl, {
        metadata: discovered.metadata,
        clientInformation: client,
        redirectUrl: this.options.redirectUri,
        scope: discovered.scope,
        state,
        resource: discovered.resource,
      });
      this.pending = { state, codeVerifier, discovered, client };
      this.authorizationUrl = authorizationUrl.href;
      this.step(
        'authorization',
        true,
        `Ready: sign in at ${authorizationUrl.origin} for ${discovered.scope ?? 'the default scope'} (PKCE S256, state, resource ${discovered.resource})`,
        { spec: 'OAuth 2.1 §4.1.1, RFC 8707' },
      );
      this.status = stepUp ? 'step-up-needed' : 'sign-in-needed';
      this.changed();
    } catch (error) {
      this.fail(phase, error);
      this.settleWaiters(false);
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
    this.step('client', true, summary, { spec });
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
      this.step('callback', false, 'A callback for another sign-in', {
        why: 'Its state is not the one sent',
        spec: 'OAuth 2.1 §7.12',
      });
      this.changed();
      return false;
    }
    const issuer = pending.discovered.metadata?.issuer;
    try {
      if (callback.error)
        throw new AuthFailure(
          `The authorization server answered ${callback.error}${callback.errorDescription ? `: ${callback.errorDescription}` : ''}`,
          'OAuth 2.1 §4.1.2.1',
        );
      if (callback.iss !== undefined && issuer !== undefined && callback.iss !== issuer)
        throw new AuthFailure(
          `The callback's iss ${callback.iss} is not the issuer ${issuer}`,
          'RFC 9207 §2.4',
        );
      if (
        callback.iss === undefined &&
        (
          pending.discovered.metadata as
            { authorization_response_iss_parameter_supported?: unknown } | undefined
        )?.authorization_response_iss_parameter_supported === true
      )
        throw new AuthFailure(
          'The callback carries no iss though the metadata promises one',
          'RFC 9207 §2.4',
        );
      if (!callback.code) throw new AuthFailure('The callback carries no code', 'OAuth 2.1 §4.1.2');
      this.step('callback', true, `Code received, state matches${callback.iss ? ', iss matches' : ''}`, {
        spec: 'RFC 9207',
      });
    } catch (error) {
      this.pending = undefined;
      this.fail('callback', error);
      this.settleWaiters(false);
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
        authorizationCode: callback.code,
        codeVerifier: pending.codeVerifier,
        redirectUri: this.options.redirectUri,
        resource: pending.discovered.resource,
        fetchFn: this.flowFetch,
      });
      if (this.signOuts !== signOuts) return false;
      this.pending = undefined;
      this.authorizationUrl = undefined;
      this.take(tokens, pending.discovered, pending.client);
      this.step(
        'token',
        true,
        `Signed in: ${tokens.scope ?? 'scope not named'}, ${tokens.expires_in ?? '?'} s${tokens.refresh_token ? ', with a refresh token' : ''}`,
        { spec: 'OAuth 2.1 §4.1.3' },
      );
      this.changed();
      this.settleWaiters(true);
      return true;
    } catch (error) {
      this.pending = undefined;
      this.fail('token', error);
      this.settleWaiters(false);
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
      this.step('refresh', true, `Refreshed: ${tokens.expires_in ?? '?'} s more`, { spec: 'OAuth 2.1 §4.3' });
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
    const grant = this.grant;
    if (!grant) return undefined;
    const kind = this.clients.get(grant.discovered.authorizationServerUrl)?.kind;
    return {
      version: 1,
      receiverUrl: this.options.receiverUrl,
      issuer: grant.discovered.metadata?.issuer ?? grant.discovered.authorizationServerUrl,
      grant: { ...grant, client: keptClient(grant.client, kind), kind },
    };
  }

  /**
   * Takes up a remembered sign-in (from this browser's storage, so checked for shape): signed in at once; an
   * expired token is refreshed on the first request, and a refused refresh asks for a new sign-in.
   */
  restore(remembered: RememberedSignIn): boolean {
    const full = rememberedGrant(remembered, this.options.receiverUrl);
    if (!full || this.grant) return false;
    // A pre-registered client's secret is the person's and stays in the tab's memory (the client identity
    // form): it was not remembered, and comes back only from what the person entered in this tab.
    const choice = this.options.choice;
    const client =
      full.kind === 'pre-registered' && choice?.clientSecret && choice.clientId === full.client.client_id
        ? { ...full.client, client_secret: choice.clientSecret }
        : full.client;
    this.grant = {
      tokens: full.tokens,
      discovered: full.discovered,
      client,
      expiresAt: full.expiresAt,
    };
    this.clients.set(full.discovered.authorizationServerUrl, {
      info: client,
      kind: full.kind ?? 'dynamic',
    });
    this.status = 'signed-in';
    this.step('token', true, `Signed in from the sign-in remembered in this browser (${remembered.issuer})`);
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
    this.step('sign-out', true, 'Signed out: tokens forgotten');
    this.settleWaiters(false);
    this.changed();
  }

  private settleWaiters(ok: boolean): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const settle of waiters) settle(ok);
  }

  private waitForSignIn(signal: AbortSignal | null | undefined): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), STEP_UP_WAIT_MS);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        resolve(ok);
      };
      this.waiters.push(done);
      signal?.addEventListener('abort', () => done(false), { once: true });
    });
  }

  /**
   * The fetch under an MCP session: the token on every request, a refresh before it runs out and after a
   * 401 invalid_token (the request waits and goes again once), a step-up on 403 insufficient_scope (the
   * request waits for the person, once, within MAX_STEP_UPS per connection). Anything else passes as it came.
   */
  wrap(inner: typeof fetch): typeof fetch {
    return async (input, init) => {
      let refreshed = false;
      let steppedUp = false;
      for (;;) {
        if (this.refreshing) await this.refreshing;
        else if (
          this.grant?.expiresAt !== undefined &&
          this.grant.expiresAt - this.now() < REFRESH_AHEAD_MS &&
          this.grant.tokens.refresh_token
        )
          await this.refresh();
        const token = this.grant?.tokens.access_token;
        const headers = new Headers(init?.headers);
        if (token) headers.set('Authorization', `Bearer ${token}`);
        const response = await inner(input, { ...init, headers });
        if (response.status !== 401 && response.status !== 403) return response;
        const challenge = readChallenge(response);
        if (response.status === 401) {
          if (
            token &&
            !refreshed &&
            token === this.grant?.tokens.access_token &&
            this.grant.tokens.refresh_token
          ) {
            refreshed = true;
            if (await this.refresh()) continue;
          } else if (token && !refreshed && token !== this.grant?.tokens.access_token && this.grant) {
            // Another request refreshed meanwhile: this one goes again (once) with the new token.
            refreshed = true;
            continue;
          }
          if (!challenge) return response;
          if (token) this.grant = undefined;
          if (!this.pending && !this.preparing) void this.prepare(challenge);
          else this.challenge = challenge;
          return response;
        }
        if (
          challenge?.error !== 'insufficient_scope' ||
          !token ||
          steppedUp ||
          this.stepUps >= MAX_STEP_UPS
        ) {
          if (challenge?.error === 'insufficient_scope' && this.stepUps >= MAX_STEP_UPS && !steppedUp)
            this.fail(
              'step-up',
              new AuthFailure(
                `The receiver still asks for more scope (${challenge.scope ?? 'not named'}) after ${MAX_STEP_UPS} step-ups: giving up`,
                'MCP authorization, Step-Up Authorization',
              ),
            );
          return response;
        }
        steppedUp = true;
        this.stepUps++;
        this.step(
          'step-up',
          true,
          `HTTP 403 insufficient_scope: the receiver asks for ${challenge.scope ?? 'more scope'}`,
          { spec: 'MCP authorization, Step-Up Authorization' },
        );
        const waiting = this.waitForSignIn(init?.signal);
        await this.prepare(challenge, true);
        if (!(await waiting)) return response;
      }
    };
  }
}
