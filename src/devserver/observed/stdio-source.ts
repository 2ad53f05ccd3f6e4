/**
 * `proxy --stdio`'s observed messages, from its tap (`RingTap`, cli/proxy/stdio-tap.ts), which numbers and
 * caps them itself. A line is timed when it was read; stdio has no headers, sessions or exchanges.
 */
import type { SeenMessage } from '../../mcp/index.js';
import type { ConsoleSnapshot } from '../stdio/connection.js';
import type { ObservedMessage, ObservedSource } from './source.js';

/** One line's message as the stdio tap keeps it. */
export interface StdioTapped {
  seq: number;
  direction: 'client' | 'server';
  message: unknown;
  /** When the line was read, ms since the epoch. */
  at: number;
}

/** What this source reads of the stdio tap (the CLI's layer, above this one, implements it). */
export interface StdioTapReader {
  after(seq: number, limit?: number): StdioTapped[];
  subscribe(listener: (message: StdioTapped) => void): () => void;
}

const observed = ({ seq, direction, message, at }: StdioTapped): ObservedMessage => {
  const seen: SeenMessage = { at, wallTime: at, from: direction, message };
  return { seq, seen };
};

export function stdioSource(
  tap: StdioTapReader,
  name: string,
  console?: (after: number) => ConsoleSnapshot,
): ObservedSource {
  return {
    ...(console ? { console } : {}),
    name,
    kind: 'stdio',
    upstream: `stdio:${name}`,
    note: () => undefined,
    after: (seq, limit) => tap.after(seq, limit).map(observed),
    subscribe: (listener) => tap.subscribe((message) => listener(observed(message))),
  };
}
