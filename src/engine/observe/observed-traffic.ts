/**
 * The messages that passed between an observed client and its server, as rows of the traffic log: the client's
 * go 'out' and the server's come 'in', as if Taskscope were the client, so the drawer reads them as it reads
 * Taskscope's own. An answer is paired with its request by the HTTP exchange that carried both and its id
 * (`requestSeq`, latency), and carries the exchange's HTTP facts. Headers were redacted by the proxy, and are
 * redacted again here: a secret never reaches the log.
 */
import {
  capMap,
  redactHeaders,
  utf8Length,
  type HttpFacts,
  type SeenMessage,
  type TrafficEvent,
  type TrafficSeqCounter,
} from '../../mcp';

/** Requests waiting for their answer; older ones are let go, never kept for ever. */
const MAX_PENDING = 5_000;

interface Pending {
  seq: number;
  at: number;
  wallTime: number;
  method?: string;
  headers?: Readonly<Record<string, string>>;
}

function byteSize(message: unknown): number {
  try {
    const json = JSON.stringify(message);
    return json === undefined ? 0 : utf8Length(json);
  } catch {
    return -1;
  }
}

export class ObservedTraffic {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly seqs: TrafficSeqCounter,
    private readonly connectionId: number,
    /** The upstream as the proxy names it (redacted), for the HTTP facts. */
    private readonly upstream: string,
  ) {}

  event(seen: SeenMessage): TrafficEvent {
    const m = (typeof seen.message === 'object' && seen.message !== null ? seen.message : {}) as Record<
      string,
      unknown
    >;
    const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
    const method = typeof m.method === 'string' ? m.method : undefined;
    const direction = seen.from === 'client' ? 'out' : 'in';
    const kind =
      method !== undefined
        ? id === undefined
          ? 'notification'
          : 'request'
        : 'error' in m
          ? 'error'
          : 'response';
    const event: TrafficEvent = {
      seq: ++this.seqs.last,
      connectionId: this.connectionId,
      at: seen.at,
      wallTime: seen.wallTime,
      direction,
      kind,
      method,
      id,
      bytes: byteSize(seen.message),
      httpStatus: seen.httpStatus,
      message: seen.message,
    };
    if (id === undefined) return event;
    if (kind === 'request') {
      this.pending.set(this.key(direction, seen.exchange, id), {
        seq: event.seq,
        at: seen.at,
        wallTime: seen.wallTime,
        method,
        headers: seen.headers,
      });
      capMap(this.pending, MAX_PENDING);
      return event;
    }
    // An answer travels the other way from its request.
    const key = this.key(direction === 'in' ? 'out' : 'in', seen.exchange, id);
    const request = this.pending.get(key);
    if (!request) return event;
    this.pending.delete(key);
    event.requestSeq = request.seq;
    event.latencyMs = Math.max(0, seen.at - request.at);
    event.method = request.method;
    if (direction === 'in' && seen.httpStatus !== undefined) event.http = this.facts(seen, request);
    return event;
  }

  /**
   * A client's request is answered on its own HTTP exchange (on 2026-07-28 two clients' ids may meet); a
   * server's request comes on one exchange and its answer goes up on another, so its id alone pairs them.
   */
  private key(direction: string, exchange: number | undefined, id: string | number): string {
    return `${direction}:${direction === 'out' ? (exchange ?? '') : ''}:${typeof id}:${String(id)}`;
  }

  private facts(seen: SeenMessage, request: Pending): HttpFacts {
    return {
      method: 'POST',
      url: this.upstream,
      requestHeaders: redactHeaders({ ...(request.headers ?? {}) }),
      status: seen.httpStatus ?? 0,
      responseHeaders: redactHeaders({ ...(seen.responseHeaders ?? {}) }),
      wallStartedAt: request.wallTime,
      waitMs: Math.max(0, seen.at - request.at),
    };
  }
}
