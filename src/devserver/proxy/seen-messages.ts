/**
 * The tap's exchanges as the JSON-RPC messages that passed, in the order they passed: what the client rules
 * judge (rules/client-judge.ts) and an observed session is built from. A body the tap cut is not JSON and is
 * skipped; nothing here throws.
 */
import type { SeenMessage } from '../../mcp/index.js';
import type { TapExchange } from './tap-types.js';

const lowerCased = (headers: ReadonlyArray<[string, string]>): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) out[name.toLowerCase()] = value;
  return out;
};

function parsed(text: string): unknown[] {
  if (text === '') return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [value];
  } catch {
    return [];
  }
}

/** One exchange's messages: the client's request body, then the answer's JSON body or its events. */
export function exchangeMessages(exchange: TapExchange): SeenMessage[] {
  const headers = lowerCased(exchange.request.headers);
  const response = exchange.response;
  const responseHeaders = response ? lowerCased(response.headers) : undefined;
  const sessionId = headers['mcp-session-id'] ?? responseHeaders?.['mcp-session-id'];
  const common = { exchange: exchange.seq, ...(sessionId !== undefined ? { sessionId } : {}) };
  const out: SeenMessage[] = [];
  if (!exchange.request.bodyTruncated)
    for (const message of parsed(exchange.request.body))
      out.push({
        at: exchange.startedAt,
        wallTime: exchange.startedAt,
        from: 'client',
        message,
        headers,
        ...common,
      });
  if (!response || !responseHeaders) return out;
  const answer = { httpStatus: response.status, responseHeaders, ...common };
  if (exchange.body !== undefined) {
    const at = exchange.endedAt ?? response.at;
    for (const message of parsed(exchange.body))
      out.push({ at, wallTime: at, from: 'server', message, ...answer });
  }
  for (const event of exchange.events)
    for (const message of parsed(event.data))
      out.push({ at: event.at, wallTime: event.at, from: 'server', message, ...answer });
  return out;
}

/** Every exchange's messages, merged in the order they passed. */
export function seenMessages(exchanges: readonly TapExchange[]): SeenMessage[] {
  return exchanges.flatMap(exchangeMessages).sort((a, b) => a.at - b.at);
}
