/**
 * Which headers cross the relay, each way. Kept apart from the route so the allow-lists can be read and reviewed
 * on their own: they decide what of the page reaches a receiver and what of a receiver reaches the page.
 */
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { RELAY_FORWARDED_HEADERS } from '../../mcp/relay-fetch.js';
import type { VettedTarget } from './target.js';

/** Sent to the receiver whatever the page names; the page adds its own (authorization, …) by X-Taskscope-Forward. */
const ALWAYS_FORWARDED = RELAY_FORWARDED_HEADERS;
/**
 * Hop-by-hop headers, the browser's own (whose forwarding would hand the receiver our cookies and origin) and the
 * relay's. accept-encoding and expect too: the relay passes bodies as they come and answers 100-continue itself.
 */
const NEVER_FORWARDED = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'origin',
  'referer',
  'cookie',
  'accept-encoding',
  'expect',
]);
const NEVER_FORWARDED_PREFIXES = ['proxy-', 'x-taskscope-', 'sec-'];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

const PASSED_ANSWER_HEADERS = [
  'content-type',
  'mcp-session-id',
  'mcp-protocol-version',
  'retry-after',
  'www-authenticate',
  'content-length',
];
/** On every answer, the receiver's too: whatever it sends, the browser must never render or keep it. */
export const SAFE_ANSWER_HEADERS: OutgoingHttpHeaders = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': 'sandbox',
  'cache-control': 'no-store',
};

/** The names in X-Taskscope-Forward the relay may send on: valid header names, none of ours or the browser's. */
export function forwardableNames(list: string | undefined): string[] {
  return (list ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(
      (name) =>
        HEADER_NAME.test(name) &&
        !NEVER_FORWARDED.has(name) &&
        !NEVER_FORWARDED_PREFIXES.some((prefix) => name.startsWith(prefix)),
    );
}

export function requestHeadersFor(headers: IncomingHttpHeaders, target: VettedTarget): OutgoingHttpHeaders {
  const names = new Set([...ALWAYS_FORWARDED, ...forwardableNames(headers['x-taskscope-forward'] as string)]);
  const out: OutgoingHttpHeaders = {};
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined) out[name] = value;
  }
  // The receiver's own name, not ours: virtual hosts, TLS and its own DNS rebinding guard depend on it.
  out.host = target.url.host;
  return out;
}

export function answerHeadersFrom(upstream: IncomingMessage, passBody: boolean): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = { ...SAFE_ANSWER_HEADERS };
  for (const name of PASSED_ANSWER_HEADERS) {
    if (!passBody && (name === 'content-type' || name === 'content-length')) continue;
    const values = upstream.headersDistinct[name];
    if (values && values.length > 0) out[name] = values.length === 1 ? values[0] : values;
  }
  return out;
}

export function contentTypeOf(upstream: IncomingMessage): string {
  return (upstream.headers['content-type'] ?? '').replace(/;.*$/s, '').trim().toLowerCase();
}

export function isPassedType(type: string): boolean {
  return (
    type === 'application/json' || type === 'text/event-stream' || /^application\/[^/\s]+\+json$/.test(type)
  );
}
