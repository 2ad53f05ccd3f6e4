import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { createForwarder } from './forward.js';
import { SAFE_ANSWER_HEADERS } from './headers.js';
import { refuse } from './refuse.js';
import { isFromOwnPage, readBody, tokenChecker } from './request.js';
import { cut, parseTarget, RelayRefusal, vetTarget, type Resolver } from './target.js';

export { forwardableNames } from './headers.js';

/** MCP requests are small; the relay holds a whole one before it forwards it. */
export const RELAY_REQUEST_LIMIT = 4 * 1024 * 1024;
/** The same cap the page puts on an answer it reads itself. */
export const RELAY_ANSWER_LIMIT = 64 * 1024 * 1024;
/** Connect and answer headers only: the page keeps its own deadlines, and event streams may run for hours. */
export const RELAY_HEADERS_TIMEOUT_MS = 30_000;

const RELAY_METHODS = new Set(['GET', 'POST', 'DELETE']);

export function newRelayToken(): string {
  return randomBytes(32).toString('base64url');
}

export interface RelayOptions {
  token: string;
  /** The start server's port, once it listens: the relay never forwards to it. */
  ownPort: () => number | undefined;
  /** Host names served besides loopback ones (ALLOWED_HOSTS). */
  allowedHosts?: readonly string[];
  /** Off (`--allow-remote`): /relay/token gives the token to nobody; the person types it into the page. */
  handOutToken?: boolean;
  resolve?: Resolver;
  headersTimeoutMs?: number;
  answerLimitBytes?: number;
}

export interface Relay {
  /** Answers /relay/token and /relay; every other path goes on to the next handler. */
  handler: RequestHandler;
  /** Drops the kept-alive connections to receivers. */
  close: () => void;
}

/**
 * The page's way to receivers that do not allow its origin: /relay forwards one MCP HTTP request to the URL in
 * X-Taskscope-Target and streams the answer back. Unlike the MCP Inspector proxy (CVE-2025-49596) it needs a
 * per-start token only our own page can read, takes nothing but JSON and event streams back, and never reaches
 * Taskscope itself or link-local addresses.
 */
export function createRelay({
  token,
  ownPort,
  allowedHosts = [],
  handOutToken = true,
  resolve,
  headersTimeoutMs = RELAY_HEADERS_TIMEOUT_MS,
  answerLimitBytes = RELAY_ANSWER_LIMIT,
}: RelayOptions): Relay {
  const tokenMatches = tokenChecker(token);
  const fromOwnPage = (req: Request): boolean => isFromOwnPage(req, allowedHosts);
  const { forward, close } = createForwarder({ headersTimeoutMs, answerLimitBytes });

  const giveToken = (req: Request, res: Response) => {
    if (req.method !== 'GET') {
      refuse(req, res, 405, `Method ${cut(req.method)} not allowed`, { allow: 'GET' });
      return;
    }
    if (!handOutToken) {
      // Others can reach this server: a request without Origin (curl on another machine) must not get it either.
      refuse(
        req,
        res,
        403,
        'The token is not handed out here: enter the one Taskscope printed on its terminal',
        {
          'x-taskscope-token-entry': 'required',
        },
      );
      return;
    }
    // A custom header: a cross-origin page cannot send it without a CORS preflight, which nothing here answers.
    if (req.headers['x-taskscope-token-request'] !== '1' || !fromOwnPage(req)) {
      refuse(req, res, 403, "The relay token is given to Taskscope's own page only");
      return;
    }
    const body = JSON.stringify({ token });
    res.writeHead(200, {
      ...SAFE_ANSWER_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  };

  const relay = async (req: Request, res: Response) => {
    if (!RELAY_METHODS.has(req.method)) {
      refuse(req, res, 405, `The relay forwards GET, POST and DELETE, not ${cut(req.method)}`, {
        allow: 'GET, POST, DELETE',
      });
      return;
    }
    if (!fromOwnPage(req)) {
      refuse(req, res, 403, "The relay serves Taskscope's own page only");
      return;
    }
    // Header only: a token in a URL ends up in history, logs and Referer.
    if (!tokenMatches(req.headers['x-taskscope-relay-token'])) {
      refuse(req, res, 401, 'Missing or wrong X-Taskscope-Relay-Token');
      return;
    }
    const tooLarge = `Request body too large for the relay (limit ${RELAY_REQUEST_LIMIT} bytes)`;
    const declared = req.headers['content-length'];
    if (declared !== undefined && !(Number(declared) <= RELAY_REQUEST_LIMIT)) {
      refuse(req, res, 413, tooLarge);
      return;
    }
    try {
      const url = parseTarget(req.headers['x-taskscope-target'] as string | undefined);
      const body = await readBody(req, RELAY_REQUEST_LIMIT);
      if (body === undefined) {
        refuse(req, res, 413, tooLarge);
        return;
      }
      const target = await vetTarget(url, { ownPort: ownPort(), resolve });
      if (res.destroyed) return;
      forward(req, res, target, body);
    } catch (error) {
      if (res.destroyed) return;
      if (error instanceof RelayRefusal) {
        refuse(req, res, error.status, error.message);
      } else if (!req.complete) {
        res.destroy();
      } else {
        console.error(error);
        refuse(req, res, 500, 'The relay failed on this request');
      }
    }
  };

  return {
    handler: (req, res, next) => {
      if (req.path === '/relay/token') giveToken(req, res);
      else if (req.path === '/relay') void relay(req, res);
      else next();
    },
    close,
  };
}
