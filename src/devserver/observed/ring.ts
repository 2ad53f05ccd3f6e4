/**
 * A source's own copy of its numbered messages, capped in count and bytes (the oldest go first), with the
 * listeners told of each one. Every reader reads from here, so none of them holds messages of its own.
 */
import type { SeenMessage } from '../../mcp/index.js';
import { numberedAfter } from './numbered.js';
import type { ObservedMessage } from './source.js';

export interface RingLimits {
  maxMessages: number;
  /** The bytes of the messages as JSON; the newest is kept whatever its size. */
  maxBytes: number;
}

export const RING_LIMITS: RingLimits = { maxMessages: 5000, maxBytes: 32 * 1024 * 1024 };

export class ObservedRing {
  private readonly kept: Array<ObservedMessage & { bytes: number }> = [];
  private readonly listeners = new Set<(message: ObservedMessage) => void>();
  private bytes = 0;
  private last = 0;

  constructor(private readonly limits: RingLimits = RING_LIMITS) {}

  /** Numbers `seen`, keeps it within the caps and tells every listener. */
  push(seen: SeenMessage): void {
    const entry = { seq: ++this.last, seen, bytes: JSON.stringify(seen)?.length ?? 0 };
    this.kept.push(entry);
    this.bytes += entry.bytes;
    while (
      this.kept.length > this.limits.maxMessages ||
      (this.bytes > this.limits.maxBytes && this.kept.length > 1)
    )
      this.bytes -= this.kept.shift()?.bytes ?? 0;
    const message = { seq: entry.seq, seen };
    for (const listener of this.listeners) {
      try {
        listener(message);
      } catch (error) {
        // A reader's failure is its own: the proxy and the other readers go on.
        console.error(error);
      }
    }
  }

  after(seq: number, limit = Infinity): ObservedMessage[] {
    return numberedAfter(this.kept, seq, limit).map(({ seq: n, seen }) => ({ seq: n, seen }));
  }

  subscribe(listener: (message: ObservedMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
