/**
 * The tap's exchanges as the JSON-RPC messages that passed, in the order they passed: what the client rules
 * judge (rules/client-judge.ts) and an observed session is built from (devserver/observed/). Each part of an
 * exchange has its function, so a live reader can turn each part as it becomes known. A body the tap cut is
 * not JSON and is skipped; nothing here throws.
 */
import type { SeenMessage } from '../../mcp/index.js';
import type { TapEvent, TapExchange } from './tap-types.js';

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

/** What every message of the exchange carries: its number and its session. */
function common(exchange: TapExchange): Pick<SeenMessage, 'exchange' | 'sessionId'> {
  const sessionId =
    exchange.request.headers.find(([n]) => n.toLowerCase() === 'mcp-session-id')?.[1] ??
    exchange.response?.headers.find(([n]) => n.toLowerCase() === 'mcp-session-id')?.[1];
  return { exchange: exchange.seq, ...(sessionId !== undefined ? { sessionId } : {}) };
}

/** What the answer's messages carry: its status and headers. */
function answer(exchange: TapExchange): Omit<SeenMessage, 'at' | 'wallTime' | 'from' | 'message'> {
  const response = exchange.response;
  return {
    ...(response ? { httpStatus: response.status, responseHeaders: lowerCased(response.headers) } : {}),
    ...common(exchange),
  };
}

/** The client's messages: its request body, once whole (none when the tap cut it). */
export function clientMessages(exchange: TapExchange): SeenMessage[] {
  if (exchange.request.bodyTruncated) return [];
  const headers = lowerCased(exchange.request.headers);
  const at = exchange.startedAt;
  return parsed(exchange.request.body).map((message) => ({
    at,
    wallTime: at,
    from: 'client',
    message,
    headers,
    ...common(exchange),
  }));
}

/** The server's messages in a JSON answer's body, once whole; timed at the answer's end. */
export function bodyMessages(exchange: TapExchange): SeenMessage[] {
  const response = exchange.response;
  if (!response || exchange.body === undefined) return [];
  const at = exchange.endedAt ?? response.at;
  const messages = parsed(exchange.body);
  // An HTTP error with no JSON-RPC body (a gateway's 429, a 503 page) still answers the request it carried: the
  // rules read its status and Retry-After. Not for a body the tap cut: that one was JSON, only too long to keep.
  if (messages.length === 0 && response.status >= 400 && !exchange.truncated)
    for (const request of parsed(exchange.request.body))
      if (isRequest(request))
        messages.push({
          jsonrpc: '2.0',
          id: request.id,
          error: {
            code: -32000 - response.status,
            message: `HTTP ${response.status} without a JSON-RPC body`,
          },
        });
  return messages.map((message) => ({
    at,
    wallTime: at,
    from: 'server',
    message,
    ...answer(exchange),
  }));
}

const isRequest = (value: unknown): value is { id: string | number } =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { method?: unknown }).method === 'string' &&
  (typeof (value as { id?: unknown }).id === 'string' || typeof (value as { id?: unknown }).id === 'number');

/** The server's messages in one event of a streamed answer; timed as it was read. */
export function eventMessages(exchange: TapExchange, event: TapEvent): SeenMessage[] {
  if (!exchange.response) return [];
  return parsed(event.data).map((message) => ({
    at: event.at,
    wallTime: event.at,
    from: 'server',
    message,
    ...answer(exchange),
  }));
}

/** One exchange's messages: the client's request body, then the answer's JSON body or its events. */
export function exchangeMessages(exchange: TapExchange): SeenMessage[] {
  return [
    ...clientMessages(exchange),
    ...bodyMessages(exchange),
    ...exchange.events.flatMap((event) => eventMessages(exchange, event)),
  ];
}

/** Every exchange's messages, merged in the order they passed. */
export function seenMessages(exchanges: readonly TapExchange[]): SeenMessage[] {
  return exchanges.flatMap(exchangeMessages).sort((a, b) => a.at - b.at);
}
