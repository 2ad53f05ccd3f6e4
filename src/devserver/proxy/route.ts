/**
 * The client endpoints `taskscope proxy` adds to the start server: `/proxy/NAME/mcp` forwards to the upstream
 * the command line named, and nothing a request carries can point it elsewhere. The endpoint shares the page's
 * origin, so it must never serve a page: it answers before Express (none of the page's headers or fallbacks
 * reach it), refuses what a browser page or navigation sends (guard.ts), and answers 404 JSON for any other
 * path under /proxy/ and for the OAuth metadata a client looks for beside it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { redactUrl } from '../../mcp/redact-headers.js';
import { refusal, type GuardPolicy } from '../guard.js';
import { refuseRequest } from './answers.js';
import { createForwarder, type ProxyTarget } from './forward.js';
import type { ExtraHeader } from './headers.js';
import { ProxyTap } from './tap.js';

export interface ProxyRoute {
  /** `/proxy/NAME/mcp`; [a-z0-9-]. */
  name: string;
  /** The upstream's MCP endpoint (Streamable HTTP), http or https. */
  upstream: string;
  /** Added to, or in place of, the client's headers of the same name on the way up. */
  headers?: readonly ExtraHeader[];
}

export interface ProxyRoutes {
  /** Answers the request and returns true when it is the proxy's; false leaves it to the page's server. */
  handle: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** Taskscope's copy of what passed. */
  tap: ProxyTap;
  /** Each proxy's NAME and its upstream as messages name it (credentials replaced). */
  targets: ReadonlyArray<{ name: string; upstream: string }>;
  close: () => void;
}

export interface ProxyRoutesOptions {
  allowedHosts?: readonly string[];
  /** Told what the proxy refuses of an upstream (an HTTP+SSE one); stderr by default. */
  onWarning?: (message: string) => void;
  tap?: ProxyTap;
}

export const PROXY_NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** The OAuth and OpenID metadata a client asks for at the root or path-inserted before /proxy/…. */
const WELL_KNOWN_FOR_PROXY = /^\/\.well-known\/[^/]+(?:\/proxy(?:\/.*)?)?$/;

export function createProxyRoutes(
  routes: readonly ProxyRoute[],
  options: ProxyRoutesOptions = {},
): ProxyRoutes {
  const targets = new Map<string, ProxyTarget>();
  for (const route of routes) {
    if (!PROXY_NAME.test(route.name))
      throw new Error(`Proxy name ${JSON.stringify(route.name)} is not [a-z0-9-]`);
    if (targets.has(route.name)) throw new Error(`Two proxies are named ${route.name}`);
    const upstream = new URL(route.upstream);
    if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:')
      throw new Error(`Proxy ${route.name}: ${upstream.protocol} is not http or https`);
    upstream.hash = '';
    targets.set(route.name, {
      name: route.name,
      upstream,
      described: redactUrl(upstream.href),
      headers: route.headers ?? [],
    });
  }
  const tap = options.tap ?? new ProxyTap(routes.flatMap((r) => r.headers ?? []));
  const forwarder = createForwarder({ tap, onWarning: options.onWarning });
  const policy: GuardPolicy = {
    allowedHosts: options.allowedHosts ?? [],
    pages: 'own',
    fetchSite: true,
    noNavigation: true,
  };

  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '/';
    const path = url.split('?', 1)[0] ?? '/';
    const ours = path === '/proxy' || path.startsWith('/proxy/');
    if (!ours && !WELL_KNOWN_FOR_PROXY.test(path)) return false;
    const refused = refusal(req.headers, policy);
    if (refused) {
      refuseRequest(req, res, 403, `Forbidden: ${refused.message}`);
      return true;
    }
    const match = /^\/proxy\/([^/]+)\/mcp$/.exec(path);
    const target = match?.[1] !== undefined ? targets.get(match[1]) : undefined;
    if (!target) {
      refuseRequest(
        req,
        res,
        404,
        `Not found: ${path.slice(0, 200)} (the client endpoints are /proxy/NAME/mcp)`,
      );
      return true;
    }
    forwarder.forward(req, res, target);
    return true;
  };

  return {
    handle,
    tap,
    targets: [...targets.values()].map((t) => ({ name: t.name, upstream: t.described })),
    close: forwarder.close,
  };
}
