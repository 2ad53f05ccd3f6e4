import { readChallenge } from './challenge';
import type { Challenge } from './discovery';

/** What the authorized fetch needs from a sign-in: the token, and what to do when the receiver refuses it. */
export interface BearerSession {
  /** The token to send, after a refresh that is due or under way. */
  tokenToSend(): Promise<string | undefined>;
  /** A 401 answered this token: true when the request should go again (refreshed, or refreshed meanwhile). */
  tokenRefused(token: string): Promise<boolean>;
  /** A 401 with a challenge that no token answers: the person is to sign in (again). */
  signInAsked(challenge: Challenge, hadToken: boolean): void;
  /** A 403 insufficient_scope: true once the person granted more scope (the request then goes again). */
  stepUp(challenge: Challenge, signal: AbortSignal | null | undefined): Promise<boolean>;
}

function withBearer(init: RequestInit | undefined, token: string): RequestInit {
  const headers = new Headers(init?.headers);
  headers.set('Authorization', `Bearer ${token}`);
  return { ...init, headers };
}

/**
 * The fetch under an MCP session: the token on every request, a refresh before it runs out and after a 401
 * (the request waits and goes again once), a step-up on 403 insufficient_scope (the request waits for the
 * person, once). Anything else passes as it came, so the session sees the receiver's own answer.
 */
export function authorizedFetch(session: BearerSession, inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    let retried = false;
    let steppedUp = false;
    for (;;) {
      const token = await session.tokenToSend();
      // Every connection offers a sign-in, so most requests have no token: those go on as they came rather
      // than with their headers copied, once per poll (bench:ui profile).
      const response = await inner(input, token ? withBearer(init, token) : init);
      if (response.status !== 401 && response.status !== 403) return response;
      const challenge = readChallenge(response);
      if (response.status === 401) {
        if (token && !retried) {
          retried = true;
          if (await session.tokenRefused(token)) continue;
        }
        if (challenge) session.signInAsked(challenge, Boolean(token));
        return response;
      }
      if (challenge?.error !== 'insufficient_scope' || !token || steppedUp) return response;
      steppedUp = true;
      if (!(await session.stepUp(challenge, init?.signal))) return response;
    }
  };
}

/** Requests waiting for the person to finish a sign-in (a step-up): each goes on when it ends, or after `ms`. */
export class SignInWaiters {
  private waiters: Array<(ok: boolean) => void> = [];

  wait(signal: AbortSignal | null | undefined, ms: number): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), ms);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((waiter) => waiter !== done);
        resolve(ok);
      };
      this.waiters.push(done);
      signal?.addEventListener('abort', () => done(false), { once: true });
    });
  }

  settle(ok: boolean): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const settle of waiters) settle(ok);
  }
}
