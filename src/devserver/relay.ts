import { randomBytes, timingSafeEqual } from 'node:crypto';
import http, { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { pipeline, Transform } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import { isAllowedHost, isOwnOrigin } from './http-server.js';
import {
  cut,
  describeTarget,
  parseTarget,
  pinnedLookup,
  RelayRefusal,
  vetTarget,
  type Resolver,
  type VettedTarget,
} from './relay-target.js';

/** MCP requests are small; the relay holds a whole one before it forwards it. */
export const RELAY_REQUEST_LIMIT = 4 * 1024 * 1024;
/** The same cap the page puts on an answer it reads itself. */
export const RELAY_ANSWER_LIMIT = 64 * 1024 * 1024;
/** Connect and answer headers only: the page keeps its own deadlines, and event streams may run for hours. */
export const RELAY_HEADERS_TIMEOUT_MS = 30_000;

const RELAY_METHODS = new Set(['GET', 'POST', 'DELETE']);

/** Sent to the receiver whatever the page names; the page adds its own (authorization, …) by X-Taskscope-Forward. */
const ALWAYS_FORWARDED = [
  'content-type',
  'accept',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'last-event-id',
];
/**
 * Hop-by-hop headers, the browser's own (whose forwarding would hand the receiver our cookies and origin) and the
 * relay's. accept-encoding and expect too: the relay passes bodies as they come and answers 100-continue itself.
 */
const NEVER_FORWARDED = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'origin',
  'referer',
  'cookie',
  'accept-encoding',
  'expect',
]);
const NEVER_FORWARDED_PREFIXES = ['proxy-', 'x-taskscope-', 'sec-'];
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

const PASSED_ANSWER_HEADERS = [
  'content-type',
  'mcp-session-id',
  'mcp-protocol-version',
  'retry-after',
  'www-authenticate',
  'content-length',
];
/** On every answer, the receiver's too: whatever it sends, the browser must never render or keep it. */
const SAFE_ANSWER_HEADERS: OutgoingHttpHeaders = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': 'sandbox',
  'cache-control': 'no-store',
};

export function newRelayToken(): string {
  return randomBytes(32).toString('base64url');
}

export interface RelayOptions {
  token: string;
  /** The start server's port, once it listens: the relay never forwards to it. */
  ownPort: () => number | undefined;
  /** Host names served besides loopback ones (ALLOWED_HOSTS). */
  allowedHosts?: readonly string[];
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

/** The names in X-Taskscope-Forward the relay may send on: valid header names, none of ours or the browser's. */
export function forwardableNames(list: string | undefined): string[] {
  return (list ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(
      (name) =>
        HEADER_NAME.test(name) &&
        !NEVER_FORWARDED.has(name) &&
        !NEVER_FORWARDED_PREFIXES.some((prefix) => name.startsWith(prefix)),
    );
}

function requestHeadersFor(headers: IncomingHttpHeaders, target: VettedTarget): OutgoingHttpHeaders {
  const names = new Set([...ALWAYS_FORWARDED, ...forwardableNames(headers['x-taskscope-forward'] as string)]);
  const out: OutgoingHttpHeaders = {};
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined) out[name] = value;
  }
  // The receiver's own name, not ours: virtual hosts, TLS and its own DNS rebinding guard depend on it.
  out.host = target.url.host;
  return out;
}

function answerHeadersFrom(upstream: IncomingMessage, passBody: boolean): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = { ...SAFE_ANSWER_HEADERS };
  for (const name of PASSED_ANSWER_HEADERS) {
    if (!passBody && (name === 'content-type' || name === 'content-length')) continue;
    const values = upstream.headersDistinct[name];
    if (values && values.length > 0) out[name] = values.length === 1 ? values[0] : values;
  }
  return out;
}

function contentTypeOf(upstream: IncomingMessage): string {
  return (upstream.headers['content-type'] ?? '').replace(/;.*$/s, '').trim().toLowerCase();
}

function isPassedType(type: string): boolean {
  return (
    type === 'application/json' || type === 'text/event-stream' || /^application\/[^/\s]+\+json$/.test(type)
  );
}

/** Errors a person can act on, instead of a bare code. */
function networkReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'the connection was reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'no route to the host';
    case 'ENOTFOUND':
      return 'no such host';
    default:
      if (typeof code === 'string' && /CERT|SSL|TLS|SELF_SIGNED|EPROTO/.test(code))
        return `TLS failed (${code})`;
      return typeof code === 'string' ? `network error (${code})` : 'network error';
  }
}

class AnswerTooLarge extends Error {}

function capBytes(limit: number): Transform {
  let total = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      total += chunk.length;
      if (total > limit) done(new AnswerTooLarge(`answer past ${limit} bytes`));
      else done(null, chunk);
    },
  });
}

function refuse(
  req: Request,
  res: Response,
  status: number,
  message: string,
  extra: OutgoingHttpHeaders = {},
) {
  if (res.writableEnded || res.destroyed) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const bodyPending =
    !req.complete &&
    (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0);
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  res.writeHead(status, {
    ...SAFE_ANSWER_HEADERS,
    ...extra,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-taskscope-relay-error': '1',
  });
  res.end(body);
  if (bodyPending) hangUpLater(req);
}

/** How long the rest of a refused body is read and dropped before the connection is cut. */
const LINGER_MS = 2000;

/**
 * Drops what is left of a refused body for a moment, then hangs up if it is still coming. Hanging up at once
 * (Connection: close) would close a socket with unread data, and the reset that sends can reach the client
 * before our answer and hide it.
 */
function hangUpLater(req: IncomingMessage): void {
  const socket = req.socket;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  const stop = () => clearTimeout(timer);
  req.once('end', stop);
  socket.once('close', stop);
  req.resume();
}

/** The whole request body, or undefined once it passes `limit` (the rest is then dropped as it comes). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        resolve(undefined);
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onClose = () => {
      done();
      reject(new Error('The page closed the request before its body ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
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
  resolve,
  headersTimeoutMs = RELAY_HEADERS_TIMEOUT_MS,
  answerLimitBytes = RELAY_ANSWER_LIMIT,
}: RelayOptions): Relay {
  const expected = Buffer.from(token);
  const httpAgent = new http.Agent({ keepAlive: true });
  const httpsAgent = new https.Agent({ keepAlive: true });

  const tokenMatches = (given: string | string[] | undefined): boolean => {
    if (typeof given !== 'string') return false;
    const buffer = Buffer.from(given);
    return buffer.length === expected.length && timingSafeEqual(buffer, expected);
  };

  /** Our own page, or no browser page at all: Sec-Fetch-Site is absent outside browsers. */
  const fromOwnPage = (req: Request): boolean => {
    const { origin, host } = req.headers;
    const site = req.headers['sec-fetch-site'];
    return (
      isAllowedHost(host, allowedHosts) &&
      (origin === undefined || isOwnOrigin(origin, host, allowedHosts)) &&
      (site === undefined || site === 'same-origin' || site === 'none')
    );
  };

  const giveToken = (req: Request, res: Response) => {
    if (req.method !== 'GET') {
      refuse(req, res, 405, `Method ${cut(req.method)} not allowed`, { allow: 'GET' });
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

  const forward = (req: Request, res: Response, target: VettedTarget, body: Buffer) => {
    const where = describeTarget(target.url);
    const seconds = Math.round(headersTimeoutMs / 100) / 10;
    const headers = requestHeadersFor(req.headers, target);
    if (body.length > 0 || req.method === 'POST') headers['content-length'] = body.length;
    const secure = target.url.protocol === 'https:';
    let upstream: http.ClientRequest;
    try {
      upstream = (secure ? https : http).request({
        protocol: target.url.protocol,
        hostname: target.hostname,
        port: target.port,
        path: `${target.url.pathname}${target.url.search}`,
        method: req.method,
        headers,
        lookup: pinnedLookup(target.addresses),
        agent: secure ? httpsAgent : httpAgent,
      });
    } catch {
      // Node refuses header values or paths it could not send verbatim; nothing has gone out.
      refuse(req, res, 400, `The relay cannot send this request to ${where}`);
      return;
    }

    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        upstream.destroy();
      }, headersTimeoutMs);
    };
    const disarm = () => clearTimeout(timer);
    arm();

    res.once('close', () => {
      disarm();
      // The page gave up (abort, deadline, closed tab): so does the receiver's side.
      if (!res.writableFinished) upstream.destroy();
    });

    upstream.on('error', (error) => {
      disarm();
      if (res.destroyed || res.writableEnded) return;
      if (timedOut) {
        refuse(req, res, 504, `The relay timed out: ${where} did not answer within ${seconds} s`);
      } else {
        refuse(req, res, 502, `The relay could not reach ${where}: ${networkReason(error)}`);
      }
    });

    upstream.on('response', (answer) => {
      disarm();
      const status = answer.statusCode ?? 502;
      const refuseAnswer = (message: string) => {
        upstream.destroy();
        refuse(req, res, 502, message);
      };
      if (status >= 300 && status < 400) {
        const location = answer.headers.location;
        refuseAnswer(
          location
            ? `The receiver redirected to ${cut(location)}; the relay does not follow redirects`
            : `The receiver answered HTTP ${status}; the relay does not follow redirects`,
        );
        return;
      }
      const encoding = (answer.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
      if (encoding !== 'identity') {
        refuseAnswer(`The receiver sent a ${cut(encoding)}-encoded answer the relay did not ask for`);
        return;
      }
      const declared = answer.headers['content-length'];
      const length = declared === undefined ? undefined : Number(declared);
      if (length !== undefined && length > answerLimitBytes) {
        refuseAnswer(
          `The receiver's answer (${length} bytes) is over the relay's ${answerLimitBytes}-byte cap`,
        );
        return;
      }
      const type = contentTypeOf(answer);
      const notPassed = `The receiver answered HTTP ${status} with ${
        type ? cut(type) : 'no Content-Type'
      }; the relay passes only JSON and event streams`;

      if (isPassedType(type)) {
        res.writeHead(status, answerHeadersFrom(answer, true));
        // An event stream may say nothing for a while: the page should see the status now.
        res.flushHeaders();
        pipeline(answer, capBytes(answerLimitBytes), res, (error) => {
          if (error) {
            upstream.destroy();
            res.destroy();
          }
        });
        return;
      }
      const passEmpty = () => {
        res.writeHead(status, answerHeadersFrom(answer, false));
        res.end();
      };
      if (status === 204 || length === 0) {
        answer.resume();
        passEmpty();
        return;
      }
      // An error status says what happened (404: the session is gone, or no endpoint; 401: auth) even when
      // its body is a page the relay will not pass: the status goes through, the body does not.
      if (status >= 400) {
        answer.destroy();
        passEmpty();
        return;
      }
      if (length !== undefined) {
        refuseAnswer(notPassed);
        return;
      }
      // No length (chunked, or until close): a 202 with nothing in it is normal, so wait for a first byte.
      arm();
      // Whichever comes first decides: a first byte, the end, or a break.
      let decided = false;
      const decide = (then: () => void) => () => {
        if (decided) return;
        decided = true;
        disarm();
        then();
      };
      answer.once(
        'data',
        decide(() => refuseAnswer(notPassed)),
      );
      answer.once('end', decide(passEmpty));
      answer.once(
        'error',
        decide(() =>
          timedOut
            ? refuse(req, res, 504, `${where} sent no answer body within ${seconds} s`)
            : refuseAnswer(`The receiver's answer from ${where} broke off`),
        ),
      );
    });

    upstream.end(body);
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
    close: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
