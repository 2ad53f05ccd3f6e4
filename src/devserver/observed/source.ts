/**
 * What the page reads of a proxy's traffic (served by routes.ts): one source per proxied server, its messages
 * numbered in the order they became known.
 */
import type { SeenMessage } from '../../mcp/index.js';
import type { ConsoleSnapshot } from '../stdio/connection.js';

export interface ObservedMessage {
  /** Increases by one per message of the source for the life of the proxy; a gap is a message the caps dropped. */
  seq: number;
  seen: SeenMessage;
}

export interface ObservedSource {
  /** The proxy's NAME: `/proxy/NAME/mcp`, or `proxy --stdio name=NAME`. */
  readonly name: string;
  readonly kind: 'http' | 'stdio';
  /** The upstream's URL with its credentials replaced, or `stdio:NAME`. */
  readonly upstream: string;
  /** A line the page shows beside the source (a 401 asking for a bearer token passed), or undefined. */
  note(): string | undefined;
  /** The kept messages with a seq above `seq`, oldest first, at most `limit` of them. */
  after(seq: number, limit?: number): ObservedMessage[];
  /** Calls `listener` with each message as it is numbered; returns the unsubscribe. */
  subscribe(listener: (message: ObservedMessage) => void): () => void;
  /** A stdio server's console (its stderr and the proxy's notes) after line `seq`, as the stdio bridge serves one. */
  console?(after: number): ConsoleSnapshot;
}
