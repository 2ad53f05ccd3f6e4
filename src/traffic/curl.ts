import { REDACTED, isSecretHeader } from '../mcp';

/**
 * One shell word, whatever it holds: inside single quotes nothing is special to a POSIX shell (no `$(…)`,
 * backticks, `$VAR`, backslashes or newlines), and a single quote itself is closed, escaped and reopened.
 */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Headers curl sets by itself or that describe this one transfer, not the request. */
const LEFT_TO_CURL = new Set(['content-length', 'host', 'connection', 'accept-encoding']);

/** The headers shown in a curl command, in the order a reader expects them: MCP's own first, then the person's. */
const FIRST = ['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];

export interface CurlInput {
  /** The receiver's URL. */
  url: string;
  /** The JSON-RPC request as sent. */
  message: unknown;
  /** The request's headers as the tap kept them (secret values redacted), when the exchange was seen. */
  sentHeaders?: Record<string, string>;
  /** The headers the person typed for this connection: the real values behind the redacted ones. */
  personHeaders: Record<string, string>;
  /** The current connection's URL: the person's secrets are for its origin only. */
  connectionUrl: string;
  /** Whether the row was seen on the current connection (not an earlier one, not a replay's). */
  sameConnection: boolean;
  /** Session and protocol, for a request whose HTTP exchange was not seen (it never got an answer). */
  sessionId?: string;
  protocolVersion?: string;
  /** Put real secret values in, rather than `[redacted]`. */
  includeSecrets: boolean;
}

function lowerKeys(headers: Record<string, string>): Map<string, [name: string, value: string]> {
  return new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), [name, value]]));
}

/** The headers the request went with: the recorded ones, or as the connection would send them now. */
function headersFor(input: CurlInput): Map<string, [string, string]> {
  if (input.sentHeaders) return lowerKeys(input.sentHeaders);
  const headers = lowerKeys({
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    ...(input.sessionId ? { 'Mcp-Session-Id': input.sessionId } : {}),
    ...(input.protocolVersion ? { 'MCP-Protocol-Version': input.protocolVersion } : {}),
  });
  for (const [lower, entry] of lowerKeys(input.personHeaders)) headers.set(lower, entry);
  return headers;
}

function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * Why the person's secret header values must not go into this row's command, or undefined when they may: they
 * were typed for the current connection's receiver, and a row of another connection, or one sent to another
 * origin, would hand them to a receiver they were never meant for.
 */
export function secretsWithheld(
  input: Pick<CurlInput, 'url' | 'connectionUrl' | 'sameConnection'>,
): string | undefined {
  if (!input.sameConnection)
    return 'this message is from an earlier connection or a replay, not the current one';
  const rowOrigin = originOf(input.url);
  const ours = originOf(input.connectionUrl);
  if (rowOrigin === undefined || rowOrigin !== ours)
    return `this message went to ${rowOrigin ?? 'an unknown origin'}, not to the connection’s ${ours ?? 'receiver'}`;
  return undefined;
}

/** A curl command that sends the same request, every word shell-quoted; secrets redacted unless asked for. */
export function curlCommand(input: CurlInput): string {
  const headers = headersFor(input);
  const person = lowerKeys(input.personHeaders);
  const includeSecrets = input.includeSecrets && secretsWithheld(input) === undefined;
  const ordered = [
    ...FIRST.filter((name) => headers.has(name)),
    ...[...headers.keys()].filter((name) => !FIRST.includes(name) && !LEFT_TO_CURL.has(name)).sort(),
  ];
  const lines = [`curl -sS -X POST ${shellQuote(input.url)}`];
  for (const lower of ordered) {
    const [name, recorded] = headers.get(lower) ?? [lower, ''];
    let value = recorded;
    if (isSecretHeader(lower) || recorded === REDACTED) {
      const real = person.get(lower)?.[1];
      value = includeSecrets && real !== undefined ? real : REDACTED;
    }
    lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  }
  lines.push(`--data-raw ${shellQuote(JSON.stringify(input.message))}`);
  return lines.join(' \\\n  ');
}
