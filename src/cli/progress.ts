/** One line of progress, rewritten in place, on a terminal only: CI logs stay free of it. */
export class Progress {
  private shown = false;

  constructor(private readonly out: NodeJS.WriteStream) {}

  get enabled(): boolean {
    return this.out.isTTY === true;
  }

  show(text: string): void {
    if (!this.enabled) return;
    const width = Math.max(20, (this.out.columns || 80) - 1);
    this.out.write(`\r\x1b[K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
    this.shown = true;
  }

  /** A line that stays (on a terminal, printed above the progress line). */
  note(text: string): void {
    this.clear();
    this.out.write(`${text}\n`);
  }

  clear(): void {
    if (!this.shown) return;
    this.out.write('\r\x1b[K');
    this.shown = false;
  }
}
