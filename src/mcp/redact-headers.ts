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
/** Custom schemes name their secret headers freely (X-Goog-Api-Key, X-Session-Token…): a name is enough. */
const SECRET_PARTS = /token|secret|password|key/i;

export function isSecretHeader(name: string): boolean {
  const lower = name.trim().toLowerCase();
  return SECRET_HEADERS.has(lower) || SECRET_PARTS.test(lower);
}

/** A copy with secret values replaced; Object.fromEntries keeps a `__proto__` header an own property. */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, isSecretHeader(name) ? REDACTED : value]),
  );
}
