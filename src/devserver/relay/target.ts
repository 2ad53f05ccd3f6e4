import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { addressKind } from '../../mcp/ip-ranges.js';

/** Every address a host name stands for; a stand-in in tests. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A refusal the relay answers with this HTTP status and message (never a stack). */
export class RelayRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'RelayRefusal';
  }
}

/** Page-supplied text cut short before it goes into a message. */
export function cut(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A target that passed every rule, with the addresses that were checked: the only ones ever connected to. */
export interface VettedTarget {
  url: URL;
  /** Without IPv6 brackets: what DNS and the pinned lookup see. */
  hostname: string;
  port: number;
  addresses: LookupAddress[];
}

/** The receiver URL from X-Taskscope-Target, or a 400 saying what is wrong with it. */
export function parseTarget(raw: string | undefined): URL {
  if (!raw) throw new RelayRefusal(400, 'Missing X-Taskscope-Target: the URL of the receiver to relay to');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RelayRefusal(400, `X-Taskscope-Target is not an absolute URL: ${cut(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RelayRefusal(400, `The relay forwards only to http: and https: URLs, not ${cut(url.protocol)}`);
  }
  if (url.username || url.password) {
    // They would end up in logs and messages; a header (X-Taskscope-Forward) carries them instead.
    throw new RelayRefusal(400, 'The target URL carries credentials (user:password@); send them in a header');
  }
  return url;
}

/** A target's origin and path for messages: never its query, which may hold a key. */
export function describeTarget(url: URL): string {
  return cut(`${url.origin}${url.pathname}`);
}

export interface VetOptions {
  /** The start server's own port: loopback targets on it are Taskscope itself. */
  ownPort: number | undefined;
  resolve?: Resolver;
}

/**
 * Resolves the target and checks every address it stands for, so that a name with one harmless and one
 * link-local address cannot pass on the harmless one.
 */
export async function vetTarget(
  url: URL,
  { ownPort, resolve = systemResolver }: VetOptions,
): Promise<VettedTarget> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(hostname);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason = code === 'ENOTFOUND' || code === 'ENODATA' ? 'no such host' : 'DNS lookup failed';
    throw new RelayRefusal(502, `The relay could not reach ${describeTarget(url)}: ${reason}`);
  }
  if (addresses.length === 0) {
    throw new RelayRefusal(502, `The relay could not reach ${describeTarget(url)}: no address for the host`);
  }
  for (const { address } of addresses) {
    const kind = addressKind(address);
    if (kind === 'link-local' || kind === 'metadata') {
      throw new RelayRefusal(
        403,
        `The relay does not forward to ${kind} addresses (${cut(hostname)} is ${address}): they reach cloud metadata services and this machine's network`,
      );
    }
    if (kind === 'loopback' && port === ownPort) {
      throw new RelayRefusal(
        403,
        `The relay does not forward to Taskscope itself (${cut(hostname)}:${port}); open that page directly`,
      );
    }
  }
  return { url, hostname, port, addresses };
}

/**
 * A lookup for http.request that answers with the vetted addresses only. Resolving again at connect time
 * would let a DNS rebinding answer (first harmless, then 169.254.169.254) slip past the check.
 */
export function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = addresses.filter((a) => !family || a.family === family);
    const first = usable[0];
    if (!first) {
      const error: NodeJS.ErrnoException = new Error('No vetted address of the requested family');
      error.code = 'ENOTFOUND';
      callback(error, '');
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, first.address, first.family);
  };
}
