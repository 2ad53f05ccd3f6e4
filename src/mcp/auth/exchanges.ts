import { cutText } from '../json';
import { redactAuthText } from './redact';
import type { AuthExchange } from './types';

/** Every request of the flow (metadata, registration, token) gets this long before it is given up. */
export const AUTH_REQUEST_DEADLINE_MS = 10_000;
const MAX_BODY_SHOWN = 4000;
/** What is redacted of a body at most; the rest is never shown. */
const MAX_BODY_READ = 1024 * 1024;

function urlOf(input: RequestInfo | URL): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the server';
  }
}

function bodyText(body: BodyInit | null | undefined): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  return undefined;
}

/**
 * A fetch for the flow's own requests: a deadline on each, no credentials, and each exchange written down
 * (redacted, cut) for the steps view. The SDK's auth functions take it as their fetchFn.
 *
 * No credentials (cookies, HTTP auth) go with them, nor does the flow need any: a browser answers a credentialed
 * request's 401 carrying `WWW-Authenticate: Basic` with its own login prompt and holds the fetch until the
 * prompt is answered (a token endpoint that takes client_secret_basic only does exactly that, on the page's
 * origin under `npm start` or through the relay). Without credentials the 401 comes back as it was sent.
 */
export function recordingFetch(
  base: typeof fetch,
  sink: () => AuthExchange[],
  now: () => number = Date.now,
  done?: (exchange: AuthExchange) => void,
): typeof fetch {
  return async (input, init) => {
    const startedAt = now();
    const url = urlOf(input);
    const expiry = new AbortController();
    const noAnswer = `no answer from ${originOf(url)} within ${AUTH_REQUEST_DEADLINE_MS / 1000} s`;
    const timer = setTimeout(
      () => expiry.abort(new DOMException(`${init?.method ?? 'GET'} ${noAnswer}`, 'TimeoutError')),
      AUTH_REQUEST_DEADLINE_MS,
    );
    const signal = init?.signal ? AbortSignal.any([init.signal, expiry.signal]) : expiry.signal;
    const request = bodyText(init?.body);
    const entry: AuthExchange = {
      method: init?.method ?? 'GET',
      url: redactAuthText(url),
      requestBody:
        request === undefined
          ? undefined
          : cutText(redactAuthText(cutText(request, MAX_BODY_READ)), MAX_BODY_SHOWN),
      startedAt,
      ms: 0,
    };
    sink().push(entry);
    try {
      const response = await base(input, { ...init, signal, credentials: 'omit' });
      entry.status = response.status;
      const text = await response
        .clone()
        .text()
        .catch(() => '');
      // Redacted before it is cut: a cut inside a token would leave its start outside the pattern.
      entry.responseBody = cutText(redactAuthText(cutText(text, MAX_BODY_READ)), MAX_BODY_SHOWN);
      return response;
    } catch (error) {
      entry.error = expiry.signal.aborted ? noAnswer : error instanceof Error ? error.message : String(error);
      throw error;
    } finally {
      clearTimeout(timer);
      entry.ms = now() - startedAt;
      done?.(entry);
    }
  };
}
