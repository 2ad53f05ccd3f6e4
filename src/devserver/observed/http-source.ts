/**
 * One HTTP proxy's observed messages (`taskscope proxy`, ../proxy/): each message numbered as it becomes known
 * in the tap — the client's when its request body is whole, a JSON answer's when its body is whole, an event
 * stream's event by event as they come — and kept in a ring of the source's own. A 401 asking for a Bearer
 * token is noted once.
 */
import { bodyMessages, clientMessages, eventMessages } from '../proxy/seen-messages.js';
import type { ProxyTap, TapExchange, TapNews } from '../proxy/tap.js';
import { ObservedRing, type RingLimits } from './ring.js';
import type { ObservedSource } from './source.js';

export interface HttpSourceOptions {
  tap: ProxyTap;
  /** The proxy's NAME: only its exchanges are this source's. */
  name: string;
  /** The upstream as messages name it (credentials replaced). */
  upstream: string;
  /** Told the note once, when it is first set (the terminal says it too). */
  onNote?: (note: string) => void;
  limits?: RingLimits;
}

export interface HttpSource extends ObservedSource {
  /** Stops reading the tap. */
  close(): void;
}

/** `WWW-Authenticate` offering the Bearer scheme, alone or among others. */
const BEARER_CHALLENGE = /(?:^|,)\s*bearer(?:\s|,|$)/i;

function asksForBearer(exchange: TapExchange): boolean {
  const response = exchange.response;
  return (
    response?.status === 401 &&
    response.headers.some(
      ([name, value]) => name.toLowerCase() === 'www-authenticate' && BEARER_CHALLENGE.test(value),
    )
  );
}

/** What the page says when the upstream wants a token the client cannot get through the proxy. */
export function bearerNote(upstream: string): string {
  return (
    `${upstream} answered 401 asking for a Bearer token. Signing a client in through the proxy is not ` +
    `supported (the upstream's OAuth metadata names the upstream); give the proxy a token instead: ` +
    `taskscope proxy ${upstream} --header 'Authorization: Bearer \${TOKEN}'`
  );
}

export function httpSource({ tap, name, upstream, onNote, limits }: HttpSourceOptions): HttpSource {
  const ring = new ObservedRing(limits);
  let note: string | undefined;
  // The tap tells its news on the forwarding path, before a chunk is passed on: the parsing and the page's
  // streams wait for the next turn of the event loop, in the order the news came.
  let pending: TapNews[] = [];
  const stop = tap.subscribe((news) => {
    if (news.exchange.proxy !== name) return;
    pending.push(news);
    if (pending.length === 1) setImmediate(drain);
  });
  const drain = () => {
    const batch = pending;
    pending = [];
    for (const news of batch) read(news);
  };
  const read = (news: TapNews) => {
    const exchange = news.exchange;
    switch (news.kind) {
      case 'request-body':
        clientMessages(exchange).forEach((seen) => ring.push(seen));
        break;
      case 'body':
        bodyMessages(exchange).forEach((seen) => ring.push(seen));
        break;
      case 'event':
        eventMessages(exchange, news.event).forEach((seen) => ring.push(seen));
        break;
      case 'response':
        if (note === undefined && asksForBearer(exchange)) {
          note = bearerNote(upstream);
          onNote?.(note);
        }
        break;
      default:
        break;
    }
  };
  return {
    name,
    kind: 'http',
    upstream,
    note: () => note,
    after: (seq, limit) => ring.after(seq, limit),
    subscribe: (listener) => ring.subscribe(listener),
    close: stop,
  };
}
