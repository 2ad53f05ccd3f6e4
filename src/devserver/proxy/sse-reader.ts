/**
 * Server-sent events read incrementally from decoded text, for Taskscope's copy of an answer: the forwarded
 * bytes never pass through here. A line longer than `maxLineChars` is dropped (and said so), never grown; so is
 * an event whose data lines add up to more than that (its lines are let go as they come, up to its blank line).
 */

export interface SseEvent {
  event?: string;
  id?: string;
  data: string;
}

export class SseReader {
  private line = '';
  private skipping = false;
  private lastWasCr = false;
  private event: string | undefined;
  private id: string | undefined;
  private data: string[] = [];
  private dataChars = 0;
  /** The event under way grew past the cap: its lines are skipped until the blank line that ends it. */
  private eventTooLong = false;
  private hasData = false;
  /** Lines dropped for their length. */
  dropped = 0;

  constructor(
    private readonly onEvent: (event: SseEvent) => void,
    private readonly maxLineChars: number,
  ) {}

  push(text: string): void {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      // \r\n is one line end: the \n after a \r ends nothing.
      if (c === 10 && this.lastWasCr && i === start) {
        this.lastWasCr = false;
        start = i + 1;
        continue;
      }
      this.append(text.slice(start, i));
      this.endLine();
      this.lastWasCr = c === 13;
      start = i + 1;
    }
    if (start < text.length) {
      this.lastWasCr = false;
      this.append(text.slice(start));
    }
  }

  private append(part: string): void {
    if (this.skipping) return;
    if (this.line.length + part.length > this.maxLineChars) {
      this.skipping = true;
      this.line = '';
      this.dropped++;
      return;
    }
    this.line += part;
  }

  private endLine(): void {
    const line = this.line;
    const skipped = this.skipping;
    this.line = '';
    this.skipping = false;
    if (skipped) return;
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      if (this.eventTooLong) return;
      this.dataChars += value.length + 1;
      if (this.dataChars > this.maxLineChars) {
        this.eventTooLong = true;
        this.data = [];
        this.dropped++;
        return;
      }
      this.data.push(value);
      this.hasData = true;
    } else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
  }

  private dispatch(): void {
    if (!this.eventTooLong && (this.hasData || this.event !== undefined || this.id !== undefined)) {
      const event: SseEvent = { data: this.data.join('\n') };
      if (this.event !== undefined) event.event = this.event;
      if (this.id !== undefined) event.id = this.id;
      this.onEvent(event);
    }
    this.event = undefined;
    this.id = undefined;
    this.data = [];
    this.dataChars = 0;
    this.eventTooLong = false;
    this.hasData = false;
  }
}
