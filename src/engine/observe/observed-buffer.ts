/**
 * What the engine keeps of an observed source, to tell its client sessions apart: the newest messages, capped
 * by count and by the characters their lines took (near enough what keeping them costs); past either cap the
 * oldest go, counted. The proxy's own copy is capped too; what the session shown has read stays in its records.
 */
import type { SeenMessage } from '../../mcp';
import type { ObservedLine } from './observed-stream';

export const MAX_OBSERVED_MESSAGES = 20_000;
export const MAX_OBSERVED_CHARS = 64 * 1024 * 1024;

export class ObservedBuffer {
  readonly messages: SeenMessage[] = [];
  /** Messages let go of, here or by the proxy's copy before they were read. */
  dropped = 0;
  private readonly sizes: number[] = [];
  private chars = 0;

  constructor(
    private readonly maxMessages = MAX_OBSERVED_MESSAGES,
    private readonly maxChars = MAX_OBSERVED_CHARS,
  ) {}

  add(lines: readonly ObservedLine[]): void {
    for (const line of lines) {
      this.messages.push(line.seen);
      this.sizes.push(line.size);
      this.chars += line.size;
    }
    let over = Math.max(0, this.messages.length - this.maxMessages);
    let chars = this.chars;
    for (const size of this.sizes.slice(0, over)) chars -= size;
    // The newest message stays, however large: it is what the page is waiting for.
    while (chars > this.maxChars && over < this.sizes.length - 1) chars -= this.sizes[over++] as number;
    if (over === 0) return;
    this.messages.splice(0, over);
    this.sizes.splice(0, over);
    this.chars = chars;
    this.dropped += over;
  }
}
