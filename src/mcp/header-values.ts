/**
 * Header values as the Streamable HTTP transport writes them (2026-07-28's Mcp-Method and Mcp-Name): plain
 * printable ASCII as is, anything else UTF-8 in a `=?base64?…?=` sentinel. Both ways, for the session that
 * sends them, the demo receiver that checks them and the client rules that judge them.
 */

/** A header value as the transport spec has it: plain printable ASCII as is, anything else base64 in a sentinel. */
export function headerValue(value: string): string {
  if (value !== '' && /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value)) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

/** The other way: a header value read as the transport spec writes it; undefined when its base64 is not UTF-8. */
export function decodeHeaderValue(value: string): string | undefined {
  const sentinel = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value.trim());
  if (!sentinel) return value.trim();
  try {
    const binary = atob(sentinel[1] ?? '');
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}
