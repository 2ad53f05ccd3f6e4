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

function bodyText(body: BodyInit | null | undefined): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  return undefined;
}

/**
 * A fetch for the flow's own requests: a deadline on each, and each exchange written down (redacted, cut)
 * for the steps view. The SDK's auth functions take it as their fetchFn.
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
    const timer = setTimeout(
      () => expiry.abort(new DOMException('deadline', 'TimeoutError')),
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
      const response = await base(input, { ...init, signal });
      entry.status = response.status;
      const text = await response
        .clone()
        .text()
        .catch(() => '');
      // Redacted before it is cut: a cut inside a token would leave its start outside the pattern.
      entry.responseBody = cutText(redactAuthText(cutText(text, MAX_BODY_READ)), MAX_BODY_SHOWN);
      return response;
    } catch (error) {
      entry.error = expiry.signal.aborted
        ? `no answer within ${AUTH_REQUEST_DEADLINE_MS / 1000} s`
        : error instanceof Error
          ? error.message
          : String(error);
      throw error;
    } finally {
      clearTimeout(timer);
      entry.ms = now() - startedAt;
      done?.(entry);
    }
  };
}
