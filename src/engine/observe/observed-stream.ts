/**
 * Reads what Taskscope's proxy observed, from the page's own server: `GET /observed/messages?source=&after=`, a
 * stream of NDJSON lines `{"seq", "seen"}` that never ends while the proxy runs. A cut stream (the server ends
 * it when the reader falls behind, a restart, the network) is opened again with `after` the last seq read, so
 * nothing is read twice; a refusal (403, 404) is final. Total: a line that is not a message is skipped, and a
 * line past MAX_LINE_CHARS is dropped unread.
 */
import { isObject, type ClassifiedError, type SeenMessage } from '../../mcp';
import type { ObservedRoute, ObservedSource } from '../messages';

/** The longest line kept; the proxy caps the bodies it keeps well below this. */
const MAX_LINE_CHARS = 16 * 1024 * 1024;
const MAX_HEADERS = 100;
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5_000;
const TOKEN_HEADER = 'X-Taskscope-Relay-Token';

export interface ObservedLine {
  seq: number;
  seen: SeenMessage;
  /** The line's length in characters: what keeping it costs, near enough. */
  size: number;
}

export interface ObservedStreamEvents {
  /** Messages read, in order; given in runs as they arrive. */
  lines: (lines: ObservedLine[]) => void;
  /** The proxy's copy let go of messages before they were read (its caps). */
  dropped: (count: number) => void;
  /** The stream is open; or cut and opened again at `retryAt`; or refused for good. */
  state: (
    state:
      | { status: 'open' }
      | { status: 'cut'; error: ClassifiedError; retryAt: number; attempt: number }
      | { status: 'refused'; error: ClassifiedError },
  ) => void;
}

function refusal(status: number, message: string): ClassifiedError {
  return { kind: status === 404 ? 'other' : 'auth', message, httpStatus: status };
}

async function errorText(response: Response): Promise<string> {
  try {
    const body: unknown = await response.json();
    if (isObject(body) && typeof body.error === 'string') return body.error.slice(0, 500);
  } catch {
    // Not the JSON refusal Taskscope's server sends.
  }
  return `HTTP ${response.status}`;
}

const headers = (route: ObservedRoute) => ({ [TOKEN_HEADER]: route.token });

/** The source as `/observed/sources` lists it, or why it cannot be observed. */
export async function fetchSource(
  base: typeof fetch,
  route: ObservedRoute,
  name: string,
): Promise<{ ok: true; source: ObservedSource } | { ok: false; error: ClassifiedError }> {
  const response = await base(new URL('/observed/sources', route.url).toString(), {
    headers: headers(route),
    cache: 'no-store',
    credentials: 'omit',
  });
  if (!response.ok) return { ok: false, error: refusal(response.status, await errorText(response)) };
  const body: unknown = await response.json().catch(() => undefined);
  const list = isObject(body) && Array.isArray(body.sources) ? body.sources : [];
  const found = list.find((s): s is Record<string, unknown> => isObject(s) && s.name === name);
  if (!found) {
    const names = list.flatMap((s) =>
      isObject(s) && typeof s.name === 'string' ? [s.name.slice(0, 100)] : [],
    );
    return {
      ok: false,
      error: {
        kind: 'other',
        message:
          names.length > 0
            ? `Taskscope's proxy has no source named "${name.slice(0, 100)}" (it has: ${names.slice(0, 20).join(', ')}).`
            : 'Taskscope was not started as a proxy (taskscope proxy …): there is nothing to observe.',
      },
    };
  }
  return {
    ok: true,
    source: {
      name,
      kind: found.kind === 'stdio' ? 'stdio' : 'http',
      upstream: typeof found.upstream === 'string' ? found.upstream.slice(0, 2000) : '',
      ...(typeof found.note === 'string' ? { note: found.note.slice(0, 1000) } : {}),
    },
  };
}

/** Headers as the log shows them: string values only, names lower-case, at most MAX_HEADERS of them. */
function headersOf(raw: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  let count = 0;
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value !== 'string') continue;
    if (++count > MAX_HEADERS) break;
    headers[name.toLowerCase().slice(0, 200)] = value.slice(0, 8_000);
  }
  return headers;
}

/** A SeenMessage as far as the engine relies on its shape; anything else in the line is not read. */
function lineOf(value: unknown): Omit<ObservedLine, 'size'> | { dropped: number } | undefined {
  if (!isObject(value)) return undefined;
  if (typeof value.dropped === 'number' && Number.isFinite(value.dropped)) return { dropped: value.dropped };
  const seen = value.seen;
  if (typeof value.seq !== 'number' || !Number.isFinite(value.seq) || !isObject(seen)) return undefined;
  if (seen.from !== 'client' && seen.from !== 'server') return undefined;
  if (typeof seen.at !== 'number' || typeof seen.wallTime !== 'number') return undefined;
  const text = (v: unknown) => (isObject(v) ? headersOf(v) : undefined);
  const number = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const message: SeenMessage = {
    at: seen.at,
    wallTime: seen.wallTime,
    from: seen.from,
    message: seen.message,
  };
  const h = text(seen.headers);
  if (h) message.headers = h;
  const rh = text(seen.responseHeaders);
  if (rh) message.responseHeaders = rh;
  const status = number(seen.httpStatus);
  if (status !== undefined) message.httpStatus = status;
  if (typeof seen.sessionId === 'string') message.sessionId = seen.sessionId.slice(0, 200);
  const exchange = number(seen.exchange);
  if (exchange !== undefined) message.exchange = exchange;
  return { seq: value.seq, seen: message };
}

export class ObservedStream {
  private after = 0;
  private readonly abort = new AbortController();
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Ends the wait before the next attempt (stop). */
  private wake: (() => void) | undefined;

  constructor(
    private readonly base: typeof fetch,
    private readonly route: ObservedRoute,
    private readonly source: string,
    private readonly events: ObservedStreamEvents,
  ) {}

  /** Reads until stopped or refused; the promise settles then. */
  start(): Promise<void> {
    return this.run();
  }

  stop(): void {
    this.abort.abort();
    clearTimeout(this.retryTimer);
    this.wake?.();
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async run(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      let error: ClassifiedError;
      try {
        const url = new URL('/observed/messages', this.route.url);
        url.searchParams.set('source', this.source);
        url.searchParams.set('after', String(this.after));
        const response = await this.base(url.toString(), {
          headers: headers(this.route),
          cache: 'no-store',
          credentials: 'omit',
          signal: this.abort.signal,
        });
        if (response.status >= 400 && response.status < 500) {
          this.events.state({
            status: 'refused',
            error: refusal(response.status, await errorText(response)),
          });
          return;
        }
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        this.events.state({ status: 'open' });
        attempt = 0;
        await this.read(response.body);
        error = {
          kind: 'cors-or-network',
          message: 'The observed stream ended; reading on from where it stopped.',
        };
      } catch (failure) {
        if (this.stopped) return;
        error = {
          kind: 'cors-or-network',
          message:
            `Taskscope's server did not answer: ${failure instanceof Error ? failure.message : String(failure)}`.slice(
              0,
              500,
            ),
        };
      }
      if (this.stopped) return;
      attempt++;
      const wait = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (attempt - 1));
      this.events.state({ status: 'cut', error, retryAt: Date.now() + wait, attempt });
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.retryTimer = setTimeout(resolve, wait);
      });
      this.wake = undefined;
    }
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let partial = '';
    let skipping = false;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || this.stopped) return;
        const parts = (partial + decoder.decode(value, { stream: true })).split('\n');
        partial = parts.pop() ?? '';
        const lines: ObservedLine[] = [];
        for (const [i, text] of parts.entries()) {
          // The rest of a line that was too long, dropped unread.
          if (i === 0 && skipping) {
            skipping = false;
            continue;
          }
          this.take(text, lines);
        }
        if (partial.length > MAX_LINE_CHARS) {
          partial = '';
          skipping = true;
        }
        if (lines.length > 0) this.events.lines(lines);
      }
    } finally {
      reader.cancel().catch(() => undefined);
    }
  }

  private take(text: string, lines: ObservedLine[]): void {
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    const line = lineOf(value);
    if (!line) return;
    if ('dropped' in line) {
      this.events.dropped(line.dropped);
      return;
    }
    // A seq at or below the last read was read already (the server's backlog after a reconnect).
    if (line.seq <= this.after) return;
    this.after = line.seq;
    lines.push({ ...line, size: text.length });
  }
}
