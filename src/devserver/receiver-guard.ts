import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { hostRefusal, isAllowedHost } from './http-server.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isAllowedOrigin(origin: string | undefined, extra: readonly string[]): boolean {
  // No Origin header: not a browser page (curl, Node clients), so no cross-site risk to guard against.
  if (origin === undefined) return true;
  if (extra.includes(origin)) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname);
  } catch {
    return false;
  }
}

/** A page served by this very server under an allow-listed Host posts with its own origin: let it in. */
export function isSameOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined || host === undefined) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

export interface ReceiverGuardOptions {
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  /** Off: no CORS headers and no preflight answer, as servers without CORS middleware (the Origin check stays). */
  cors?: boolean;
  /** The CORS headers of this receiver's generation (which request headers it accepts and exposes). */
  setCors: (req: Request, res: Response, origin: string) => void;
  sendError: (res: Response, status: number, code: number, message: string) => void;
}

/**
 * What both demo receivers check before anything else, as the transport spec asks: a Host that is ours (DNS
 * rebinding), an Origin that is loopback or allowed, refusals as JSON-RPC errors; then CORS and preflights.
 */
export function receiverGuard(options: ReceiverGuardOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!isAllowedHost(req.headers.host, options.allowedHosts)) {
      options.sendError(res, 403, -32600, `Forbidden: ${hostRefusal(req.headers.host)}`);
      return;
    }
    const origin = req.headers.origin;
    if (!isAllowedOrigin(origin, options.allowedOrigins) && !isSameOrigin(origin, req.headers.host)) {
      options.sendError(res, 403, -32000, `Origin ${String(origin)} is not allowed by this receiver`);
      return;
    }
    if (options.cors === false) return next();
    if (origin) options.setCors(req, res, origin);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    next();
  };
}
