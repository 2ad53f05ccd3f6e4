/**
 * What the page's console panel shows for one stdio server: its stderr, and what the bridge has to say about it
 * (started, exited, a line on stdout that is not MCP). A ring, capped by lines and bytes, because a server may
 * write without end; every line has a sequence number so the page asks only for what it has not seen.
 */
import { stripVTControlCharacters } from 'node:util';
import { keepLines } from '../../format/control-chars.js';

export type ConsoleStream = 'stderr' | 'stdout' | 'bridge';

export interface ConsoleLine {
  seq: number;
  /** Local time the line was read (ms since the epoch). */
  at: number;
  stream: ConsoleStream;
  text: string;
}

export interface ConsoleRingLimits {
  maxLines: number;
  maxBytes: number;
  /** A longer line is cut and says so. */
  maxLineChars: number;
}

export const CONSOLE_LIMITS: ConsoleRingLimits = { maxLines: 2000, maxBytes: 512 * 1024, maxLineChars: 4000 };

/**
 * Text a terminal would colour or move the cursor with, shown as plain text: escape sequences go, and so do
 * the other control characters (tabs stay). The page renders it as text either way.
 */
export function plainText(raw: string): string {
  return keepLines(stripVTControlCharacters(raw));
}

export class ConsoleRing {
  private readonly lines: ConsoleLine[] = [];
  private bytes = 0;
  private nextSeq = 1;
  /** Lines pushed out by the caps since the start. */
  dropped = 0;

  constructor(
    private readonly limits: ConsoleRingLimits = CONSOLE_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  push(stream: ConsoleStream, raw: string): ConsoleLine {
    let text = plainText(raw);
    if (text.length > this.limits.maxLineChars)
      text = `${text.slice(0, this.limits.maxLineChars)}… (${text.length - this.limits.maxLineChars} more characters)`;
    const line = { seq: this.nextSeq++, at: this.now(), stream, text };
    this.lines.push(line);
    this.bytes += text.length;
    while (
      this.lines.length > this.limits.maxLines ||
      (this.bytes > this.limits.maxBytes && this.lines.length > 1)
    ) {
      const gone = this.lines.shift();
      this.bytes -= gone?.text.length ?? 0;
      this.dropped++;
    }
    return line;
  }

  /** The lines after `seq` (all that are kept, for 0). */
  after(seq: number): ConsoleLine[] {
    const first = this.lines.findIndex((line) => line.seq > seq);
    return first < 0 ? [] : this.lines.slice(first);
  }

  /** The newest lines of one stream, for a sentence such as "exited with code 1: …". */
  last(stream: ConsoleStream, count: number): string[] {
    const out: string[] = [];
    for (let i = this.lines.length - 1; i >= 0 && out.length < count; i--) {
      const line = this.lines[i];
      if (line && line.stream === stream && line.text.trim() !== '') out.unshift(line.text);
    }
    return out;
  }

  get lastSeq(): number {
    return this.nextSeq - 1;
  }
}
