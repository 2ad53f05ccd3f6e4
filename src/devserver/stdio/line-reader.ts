/**
 * Splits a byte stream into lines, as the stdio transport frames MCP messages (one per line, `\n`, an optional
 * `\r` before it). A line longer than `maxLineBytes` is dropped as it comes rather than held, and reported.
 */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  /** Bytes of an over-long line being dropped, or undefined while reading normally. */
  private skipped: number | undefined;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: (bytes: number) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline < 0) {
        this.keep(chunk.subarray(start));
        return;
      }
      this.keep(chunk.subarray(start, newline));
      this.finish();
      start = newline + 1;
    }
  }

  /** The stream ended: a last line without its newline still counts. */
  end(): void {
    if (this.size > 0 || this.skipped !== undefined) this.finish();
  }

  private keep(part: Buffer): void {
    if (part.length === 0) return;
    if (this.skipped !== undefined) {
      this.skipped += part.length;
      return;
    }
    if (this.size + part.length > this.maxLineBytes) {
      this.skipped = this.size + part.length;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(part);
    this.size += part.length;
  }

  private finish(): void {
    if (this.skipped !== undefined) {
      const bytes = this.skipped;
      this.skipped = undefined;
      this.onOverflow(bytes);
      return;
    }
    const line = Buffer.concat(this.parts, this.size).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    this.onLine(line);
  }
}
