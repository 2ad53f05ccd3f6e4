/**
 * Taskscope's own copy of what passes through `proxy --stdio`: each line either side writes, read from a copy
 * of the bytes (the forwarded stream is never touched), parsed, and kept in a bounded ring. Caps apply to what
 * is kept only: an over-long line, a line that is not JSON, or one pushed out of the ring is counted, never
 * held, and forwarding never waits on any of it.
 */
import { numberedAfter } from '../../devserver/observed/numbered.js';
import { LineReader } from '../../devserver/stdio/line-reader.js';
import { redactText } from '../../devserver/proxy/tap-redact.js';

export type TapDirection = 'client' | 'server';

/** Where the proxy's copy of each message goes. */
export interface ProxyTap {
  /** `bytes`: the size of the line it was read from, when known. */
  record(direction: TapDirection, message: unknown, at: number, bytes?: number): void;
}

export interface TappedMessage {
  seq: number;
  direction: TapDirection;
  message: unknown;
  /** Local time the line was read (ms since the epoch). */
  at: number;
}

export const TAP_LIMITS = {
  /** Messages kept, and the bytes of their lines; the oldest go first. */
  maxMessages: 5000,
  maxBytes: 32 * 1024 * 1024,
  /** A longer line is forwarded as always but not kept. */
  maxLineBytes: 1024 * 1024,
};

/** The messages kept, newest last, within `maxMessages` and `maxBytes` (the newest is kept whatever its size). */
export class RingTap implements ProxyTap {
  private readonly messages: Array<TappedMessage & { bytes: number }> = [];
  private readonly listeners = new Set<(message: TappedMessage) => void>();
  private bytes = 0;
  private nextSeq = 1;
  /** Messages pushed out by the caps since the start. */
  dropped = 0;

  constructor(
    private readonly maxMessages = TAP_LIMITS.maxMessages,
    private readonly maxBytes = TAP_LIMITS.maxBytes,
  ) {}

  record(direction: TapDirection, message: unknown, at: number, bytes?: number): void {
    const size = bytes ?? JSON.stringify(message)?.length ?? 0;
    const kept = { seq: this.nextSeq++, direction, message, at };
    this.messages.push({ ...kept, bytes: size });
    this.bytes += size;
    while (
      this.messages.length > this.maxMessages ||
      (this.bytes > this.maxBytes && this.messages.length > 1)
    ) {
      this.bytes -= this.messages.shift()?.bytes ?? 0;
      this.dropped++;
    }
    for (const listener of this.listeners) {
      try {
        listener(kept);
      } catch (error) {
        // A reader's failure (the page's stream) is its own: forwarding goes on.
        console.error(error);
      }
    }
  }

  /** The messages after `seq` (all that are kept, for 0), oldest first, at most `limit` of them. */
  after(seq: number, limit = Infinity): TappedMessage[] {
    return numberedAfter(this.messages, seq, limit).map(({ bytes: _, ...kept }) => kept);
  }

  /** Calls `listener` with each message as it is kept; returns the unsubscribe. */
  subscribe(listener: (message: TappedMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** What a direction's reader could not keep, for the console's notes. */
export interface TapNotes {
  overLong: (direction: TapDirection, bytes: number) => void;
  notJson: (direction: TapDirection, line: string) => void;
}

/** Reads one direction's bytes into lines for the tap; `push` is given the same chunks the pipe forwards. */
export function tapReader(
  tap: ProxyTap,
  direction: TapDirection,
  notes: TapNotes,
  options: { now?: () => number; maxLineBytes?: number; secrets?: readonly string[] } = {},
): LineReader {
  const { now = Date.now, maxLineBytes = TAP_LIMITS.maxLineBytes, secrets = [] } = options;
  return new LineReader(
    maxLineBytes,
    (raw) => {
      if (raw.trim() === '') return;
      // What the copy keeps holds no credential: OAuth token fields, and the --env values the server was given.
      const line = redactText(raw, secrets);
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        notes.notJson(direction, line);
        return;
      }
      tap.record(direction, message, now(), Buffer.byteLength(raw));
    },
    (bytes) => notes.overLong(direction, bytes),
  );
}
