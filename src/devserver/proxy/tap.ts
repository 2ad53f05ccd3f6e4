/**
 * Taskscope's own copy of what passes through the proxy, for the page: per exchange the request, the answer's
 * status and headers, and the answer decoded (JSON whole, event streams event by event as they arrive), with
 * times. Credentials never enter it. Everything here is capped and nothing here can slow forwarding: the
 * forwarder hands chunks over and moves on; past a cap, or when decoding falls behind, the copy drops.
 */
import { REDACTED, isSecretHeader, redactUrl } from '../../mcp/redact-headers.js';
import { headerPairs, type RawHeaders } from './headers.js';
import { Recorder, headersSize } from './tap-recorder.js';
import { secretParts } from './tap-redact.js';
import {
  TAP_LIMITS,
  type TapExchange,
  type TapLimits,
  type TapNews,
  type TapRecorder,
  type TapSink,
} from './tap-types.js';

export * from './tap-types.js';

/** Headers of the protocol itself: never a credential, whoever sets them. */
const PROTOCOL_HEADERS = new Set([
  'mcp-protocol-version',
  'mcp-session-id',
  'mcp-method',
  'mcp-name',
  'accept',
  'content-type',
  'user-agent',
  'last-event-id',
  'traceparent',
]);

export class ProxyTap implements TapSink {
  private readonly ring: TapExchange[] = [];
  private readonly sizes = new WeakMap<TapExchange, number>();
  private readonly listeners = new Set<(news: TapNews) => void>();
  private bytes = 0;
  private seq = 0;
  /** Exchanges the caps let go since the start: a report judged on the rest says so. */
  evicted = 0;
  private readonly secrets: string[];
  private readonly secretNames: Set<string>;

  constructor(
    /** The command line's `--header`s: their values are secrets wherever they appear. */
    extraHeaders: ReadonlyArray<{ name: string; value: string }> = [],
    readonly limits: TapLimits = TAP_LIMITS,
    readonly now: () => number = Date.now,
  ) {
    this.secretNames = new Set(extraHeaders.map((h) => h.name.toLowerCase()));
    // A `--header` is a credential for the upstream, looked for in bodies too, unless it is one of the protocol's
    // own headers: an `MCP-Protocol-Version` given on the command line must not blank every version a body names.
    this.secrets = extraHeaders.flatMap((h) =>
      PROTOCOL_HEADERS.has(h.name.toLowerCase()) ? [] : secretParts(h.value, h.name),
    );
  }

  /** The exchanges kept, oldest first. Live objects: read, do not change. */
  entries(): readonly TapExchange[] {
    return this.ring;
  }

  /** Calls `listener` with each change as it happens; returns the unsubscribe. */
  subscribe(listener: (news: TapNews) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The bytes the copy holds now. */
  size(): number {
    return this.bytes;
  }

  begin(proxy: string, method: string, target: string, raw: RawHeaders): TapRecorder {
    const secrets = [...this.secrets];
    const headers = this.redactHeaders(raw, secrets);
    // A query may carry a credential too (?access_token=…): the same rule as the page's URLs.
    if (target.includes('?')) target = redactUrl(`http://proxy${target}`).slice('http://proxy'.length);
    const exchange: TapExchange = {
      seq: ++this.seq,
      proxy,
      startedAt: this.now(),
      request: { method, target, headers, body: '', bodyBytes: 0, bodyTruncated: false },
      events: [],
      answerBytes: 0,
      truncated: false,
      droppedEvents: 0,
    };
    this.ring.push(exchange);
    this.sizes.set(exchange, 0);
    this.grow(exchange, headersSize(headers) + target.length);
    this.emit({ kind: 'request', exchange });
    return new Recorder(this, exchange, secrets);
  }

  /** Header values with their credentials replaced; the secrets found are added to `secrets` for the bodies. */
  redactHeaders(raw: RawHeaders, secrets: string[]): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    for (const [name, value] of headerPairs(raw)) {
      if (isSecretHeader(name) || this.secretNames.has(name.toLowerCase())) {
        if (!PROTOCOL_HEADERS.has(name.toLowerCase())) secrets.push(...secretParts(value, name));
        out.push([name, REDACTED]);
      } else out.push([name, value]);
    }
    return out;
  }

  /** Accounts `bytes` more to `exchange`, evicting the oldest exchanges past the caps. */
  grow(exchange: TapExchange, bytes: number): boolean {
    if (!this.sizes.has(exchange)) return false;
    this.sizes.set(exchange, (this.sizes.get(exchange) ?? 0) + bytes);
    this.bytes += bytes;
    while (
      this.ring.length > this.limits.maxExchanges ||
      (this.bytes > this.limits.maxBytes && this.ring.length > 0)
    ) {
      const oldest = this.ring.shift();
      if (!oldest) break;
      this.bytes -= this.sizes.get(oldest) ?? 0;
      this.sizes.delete(oldest);
      this.evicted++;
    }
    return this.sizes.has(exchange);
  }

  /** Tells every subscriber. */
  emit(news: TapNews): void {
    for (const listener of this.listeners) {
      try {
        listener(news);
      } catch (error) {
        // A reader's failure is its own: forwarding and the other readers go on.
        console.error(error);
      }
    }
  }
}
