/**
 * The page's two ways to what the proxies observed:
 * - GET /observed/sources: `{"sources": [{name, kind: "http" | "stdio", upstream, note?}]}`;
 * - GET /observed/messages?source=NAME&after=SEQ: NDJSON, `{"seq": N, "seen": SeenMessage}` a line, the kept
 *   messages above `after` then each new one, never ended while the reader keeps up (stream.ts);
 * - GET /observed/console?source=NAME&after=SEQ: a stdio source's console lines after `after` (JSON).
 * The traffic of the person's own clients crosses here, so both ask what the relay asks (relay/request.ts): our
 * own page, or no page at all, and the per-start token in X-Taskscope-Relay-Token. Refusals are JSON
 * (`{"error": …}`: 403, 404 for an unknown source), never a page or a stack.
 */
import type { Request, RequestHandler, Response } from 'express';
import { SAFE_ANSWER_HEADERS } from '../relay/headers.js';
import { isFromOwnPage, tokenChecker } from '../relay/request.js';
import type { ObservedSource } from './source.js';
import { streamMessages } from './stream.js';

export interface ObservedRoutesOptions {
  token: string;
  /** Host names served besides loopback ones (ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  sources: readonly ObservedSource[];
}

function sendJson(res: Response, status: number, value: unknown, extra: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    ...SAFE_ANSWER_HEADERS,
    ...extra,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

const refuse = (res: Response, status: number, error: string, extra?: Record<string, string>) =>
  sendJson(res, status, { error }, extra);

/** A seq the reader read last: a whole number from 0, or undefined when it is not one. */
function afterOf(raw: unknown): number | undefined {
  if (raw === undefined) return 0;
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw)) return undefined;
  return Number(raw);
}

export function observedRoutes({ token, allowedHosts, sources }: ObservedRoutesOptions): RequestHandler {
  const tokenMatches = tokenChecker(token);
  const byName = new Map(sources.map((source) => [source.name, source]));

  const describe = (source: ObservedSource) => {
    const note = source.note();
    return {
      name: source.name,
      kind: source.kind,
      upstream: source.upstream,
      ...(note !== undefined ? { note } : {}),
    };
  };

  const messages = (req: Request, res: Response) => {
    const name = req.query.source;
    const source = typeof name === 'string' ? byName.get(name) : undefined;
    if (!source) {
      refuse(res, 404, `No observed source ${JSON.stringify(String(name ?? '').slice(0, 100))}`);
      return;
    }
    const after = afterOf(req.query.after);
    if (after === undefined) {
      refuse(res, 400, 'after must be the seq last read, a whole number');
      return;
    }
    streamMessages(req, res, source, after);
  };

  /** A stdio source's console, as /stdio/<name>/console answers for a bridged server: the lines after `after`. */
  const consoleOf = (req: Request, res: Response) => {
    const name = req.query.source;
    const source = typeof name === 'string' ? byName.get(name) : undefined;
    if (!source?.console) {
      refuse(res, 404, `No console for ${JSON.stringify(String(name ?? '').slice(0, 100))}`);
      return;
    }
    const after = afterOf(req.query.after);
    if (after === undefined) {
      refuse(res, 400, 'after must be the seq last read, a whole number');
      return;
    }
    sendJson(res, 200, source.console(after));
  };

  return (req, res, next) => {
    const path = req.path;
    if (path !== '/observed/sources' && path !== '/observed/messages' && path !== '/observed/console')
      return next();
    // Nothing here reads a body.
    req.resume();
    if (req.method !== 'GET') {
      refuse(res, 405, `${req.method.slice(0, 20)} is not allowed here: GET only`, { allow: 'GET' });
      return;
    }
    if (!isFromOwnPage(req, allowedHosts)) {
      refuse(res, 403, "The observed traffic is served to Taskscope's own page only");
      return;
    }
    // Header only: a token in a URL ends up in history, logs and Referer.
    if (!tokenMatches(req.headers['x-taskscope-relay-token'])) {
      refuse(res, 403, 'Missing or wrong X-Taskscope-Relay-Token');
      return;
    }
    if (path === '/observed/sources') sendJson(res, 200, { sources: sources.map(describe) });
    else if (path === '/observed/console') consoleOf(req, res);
    else messages(req, res);
  };
}
