/**
 * Header values that carry credentials, recognised by name. Used where headers leave the connection: the
 * traffic tap's HTTP facts (redacted at the source, so no log, export or history ever holds them) and what
 * history stores.
 */

export const REDACTED = '[redacted]';

const SECRET_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
  'x-auth-token',
  'x-taskscope-relay-token',
]);
/**
 * Custom schemes name their secret headers freely (X-Goog-Api-Key, X-Session-Token): a name is enough. Kept
 * narrow for headers, which are redacted for good at capture: WWW-Authenticate, Access-Control-Allow-Credentials
 * or X-Error-Code carry no secret and are needed to read an exchange.
 */
const SECRET_HEADER_PARTS = /token|secret|password|key/i;
/**
 * Query parameters are named more loosely (?access_token=, ?sig=, ?authCode=, ?session=…) and a URL is shown
 * and shared more often than a header: the wide rule. A header's secret moved into the URL stays hidden too.
 */
const SECRET_PARAM_PARTS = /token|secret|password|key|auth|sig|credential|session|code/i;
/**
 * Named like secrets but needed to read an exchange: MCP forbids treating a session as authentication, and
 * exports replace session ids with pseudonyms instead (`SessionPseudonyms` in
 * src/engine/trace/build-trace.ts).
 */
const NOT_SECRET = new Set(['mcp-session-id', 'mcp-protocol-version']);

/** Whether a header of this name carries a credential. */
export function isSecretHeader(name: string): boolean {
  const lower = name.trim().toLowerCase();
  if (NOT_SECRET.has(lower)) return false;
  return SECRET_HEADERS.has(lower) || SECRET_HEADER_PARTS.test(lower);
}

/** Whether a query parameter of this name carries a credential. */
export function isSecretParam(name: string): boolean {
  const lower = name.trim().toLowerCase();
  if (NOT_SECRET.has(lower)) return false;
  return isSecretHeader(lower) || SECRET_PARAM_PARTS.test(lower);
}

/**
 * The URL with its credentials replaced: the password of user:password@ and the values of secret-looking
 * query parameters. `redacted` collects what was replaced, as `?name` for a query parameter.
 */
export function redactUrl(raw: string, redacted?: Set<string>): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw;
  }
  let changed = false;
  if (url.password) {
    url.password = 'redacted';
    redacted?.add('url password');
    changed = true;
  }
  for (const name of new Set(url.searchParams.keys())) {
    if (isSecretParam(name)) {
      url.searchParams.set(name, REDACTED);
      redacted?.add(`?${name}`);
      changed = true;
    }
  }
  return changed ? url.toString() : raw;
}

/** A copy with secret values replaced; Object.fromEntries keeps a `__proto__` header an own property. */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, isSecretHeader(name) ? REDACTED : value]),
  );
}
