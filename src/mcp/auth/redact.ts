/** Fields of the OAuth flow that are secrets wherever they appear: form bodies, JSON bodies, URLs. */
export const AUTH_SECRET_FIELDS: readonly string[] = [
  'code',
  'code_verifier',
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'registration_access_token',
];

const REDACTED = '[redacted]';
const FIELDS = AUTH_SECRET_FIELDS.join('|');
// "field": "value" in JSON (also a value cut short before its closing quote), and field=value in a query
// string or a form body.
const JSON_FIELD = new RegExp(`("(?:${FIELDS})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*(?:"|\\\\?$)`, 'g');
const FORM_FIELD = new RegExp(`((?:^|[?&#\\s])(?:${FIELDS})=)[^&#\\s"]*`, 'g');

/**
 * The text with every OAuth secret replaced: what the steps view, the traffic panel, history and exports may
 * keep of an authorization exchange. Works on any text, so a field in an unexpected place is caught too.
 */
export function redactAuthText(text: string): string {
  return text.replace(JSON_FIELD, `$1"${REDACTED}"`).replace(FORM_FIELD, `$1${REDACTED}`);
}

/** A URL with its secret query parameters (a callback's code) replaced; other text unchanged. */
export function redactAuthUrl(url: string): string {
  return redactAuthText(url);
}
