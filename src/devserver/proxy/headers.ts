/**
 * Which headers the proxy rewrites, each way. Everything end to end passes as it came (names, case, order,
 * repeats): only hop-by-hop headers (RFC 9110 §7.6.1, and those a Connection header names) stay on their hop,
 * `Host` becomes the upstream's, the command line's `--header`s replace the client's of the same name, and two
 * headers are added to answers so that no browser renders what passes on the page's origin.
 */

/** RFC 9110 §7.6.1: meaningful for one connection only. */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'te',
  'transfer-encoding',
  'upgrade',
]);

/** Added to every answer the proxy passes back: the page's origin must never render or sniff an upstream's. */
export const ADDED_ANSWER_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Content-Security-Policy', 'sandbox'],
  ['X-Content-Type-Options', 'nosniff'],
];

/** A header the proxy adds or replaces on the way up (`--header 'K: V'`). */
export interface ExtraHeader {
  name: string;
  value: string;
}

/** Node's raw header list: name, value, name, value… as they came on the wire. */
export type RawHeaders = readonly string[];

/** The raw list as name-value pairs, in order. */
export function headerPairs(raw: RawHeaders): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i] ?? '', raw[i + 1] ?? '']);
  return pairs;
}

/** The names a Connection header lists: they too are for this hop only. */
function connectionNamed(raw: RawHeaders): Set<string> {
  const named = new Set<string>();
  for (const [name, value] of headerPairs(raw))
    if (name.toLowerCase() === 'connection')
      for (const listed of value.split(',')) if (listed.trim() !== '') named.add(listed.trim().toLowerCase());
  return named;
}

/** The end-to-end headers of `raw`, with those named in `drop` left out too. */
function endToEnd(raw: RawHeaders, drop: ReadonlySet<string> = new Set()): string[] {
  const named = connectionNamed(raw);
  const out: string[] = [];
  for (const [name, value] of headerPairs(raw)) {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower) || drop.has(lower)) continue;
    out.push(name, value);
  }
  return out;
}

/** What goes up: the client's end-to-end headers, `Host` the upstream's, the `--header`s in place of the client's. */
export function upstreamRequestHeaders(
  raw: RawHeaders,
  upstream: URL,
  extra: readonly ExtraHeader[],
): string[] {
  const replaced = new Set(['host', ...extra.map((h) => h.name.toLowerCase())]);
  // The upstream's own name: virtual hosts, TLS and its own DNS rebinding guard depend on it.
  const out = ['Host', upstream.host, ...endToEnd(raw, replaced)];
  for (const { name, value } of extra) out.push(name, value);
  // A body the client framed with Transfer-Encoding is framed again on this hop: Node chunks what is piped only
  // when told to (a GET or DELETE would otherwise send it bare, and its bytes would read as a second request).
  if (headerPairs(raw).some(([name]) => name.toLowerCase() === 'transfer-encoding'))
    out.push('Transfer-Encoding', 'chunked');
  return out;
}

/** What comes back: the upstream's end-to-end headers and the two the proxy adds. */
export function clientAnswerHeaders(raw: RawHeaders): string[] {
  const out = endToEnd(raw);
  for (const [name, value] of ADDED_ANSWER_HEADERS) out.push(name, value);
  return out;
}

/** The first value of a header in a raw list, by name in any case. */
export function rawHeader(raw: RawHeaders, name: string): string | undefined {
  const lower = name.toLowerCase();
  return headerPairs(raw).find(([n]) => n.toLowerCase() === lower)?.[1];
}

/**
 * A `--header 'Name: value'` as the command line gives it, `${VAR}` in the value replaced from `env` (so a
 * token stays out of `ps`). Throws with a sentence for a malformed one or a variable that is not set.
 */
export function parseExtraHeader(given: string, env: NodeJS.ProcessEnv): ExtraHeader {
  const colon = given.indexOf(':');
  const name = colon < 0 ? '' : given.slice(0, colon).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw new Error(`--header ${JSON.stringify(given.slice(0, 80))}: give it as 'Name: value'`);
  if (HOP_BY_HOP.has(name.toLowerCase()) || name.toLowerCase() === 'host')
    throw new Error(`--header ${name}: the proxy sets ${name} itself`);
  const value = given
    .slice(colon + 1)
    .trim()
    .replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, variable: string) => {
      const set = env[variable];
      if (set === undefined)
        throw new Error(`--header ${name}: the environment variable ${variable} is not set`);
      return set;
    });
  if (/[\r\n\0]/.test(value)) throw new Error(`--header ${name}: its value holds a line break`);
  return { name, value };
}
