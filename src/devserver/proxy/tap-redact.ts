/**
 * What the tap may keep of a credential: nothing. Secret-named headers are replaced by name (mcp's rule), the
 * values of those and of the command line's `--header`s are replaced wherever they appear in a body, and so are
 * OAuth token fields.
 */
import { redactAuthText } from '../../mcp/auth/redact.js';
import { REDACTED } from '../../mcp/redact-headers.js';

/** Secret strings shorter than this are not searched for in bodies: they would match ordinary text. */
const MIN_SECRET_CHARS = 8;

/** What every OAuth secret field's name holds: text without any of these has none to replace. */
const MAY_HOLD_AUTH_FIELD = /code|_token|secret/;

/**
 * The parts of a credential header's value to look for in bodies: the whole value and, for `Scheme token`, the
 * token alone (it may appear in a body without its scheme); for cookies, each cookie's value, never its name.
 */
export function secretParts(value: string, name = ''): string[] {
  const lower = name.toLowerCase();
  const parts =
    lower === 'cookie' || lower === 'set-cookie'
      ? // Set-Cookie's first pair is the cookie; the rest are its attributes (Path, Expires…).
        (lower === 'set-cookie' ? value.split(';').slice(0, 1) : value.split(';')).map((pair) =>
          pair.slice(pair.indexOf('=') + 1),
        )
      : [value, ...value.split(/\s+/)];
  return [...new Set(parts.map((p) => p.trim()).filter((p) => p.length >= MIN_SECRET_CHARS))];
}

/** The text with OAuth fields and every known secret replaced. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = MAY_HOLD_AUTH_FIELD.test(text) ? redactAuthText(text) : text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}
