/**
 * The stdio bridge: each stdio server named on the command line is offered to the page as a Streamable HTTP
 * receiver on Taskscope's own origin, /stdio/<name>/mcp, with its console at /stdio/<name>/console and a stop
 * at /stdio/<name>/stop. Every route asks what the relay asks (Host, Origin and Sec-Fetch-Site through
 * guard.ts, then the per-start token) before anything else, and no route takes a command, an argument, an
 * environment or a directory from the request: those come from the command line alone.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { isFromOwnPage, readBody, tokenChecker } from '../relay/request.js';
import { refuse } from '../relay/refuse.js';
import { RELAY_REQUEST_LIMIT } from '../relay/route.js';
import { SAFE_ANSWER_HEADERS } from '../relay/headers.js';
import { sendJsonRpcError } from '../json-rpc-http.js';
import { RELAY_HEADERS } from '../../mcp/relay-fetch.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { formatMs } from '../../format/time.js';
import { BridgeConnection, type StdioReceiver } from './connection.js';
import { Outlet } from './outlet.js';
import type { ChildOptions, WireMessage } from './child.js';

export type { StdioReceiver } from './connection.js';

/** The page's name for its connection: one process each. */
export const CONNECTION_HEADER = 'x-taskscope-stdio-connection';
const CONNECTION_ID = /^[A-Za-z0-9_-]{16,64}$/;
export const RECEIVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface StdioBridgeOptions {
  receivers: readonly StdioReceiver[];
  /** The relay's token: one secret per start for everything only the page may use. */
  token: string;
  allowedHosts?: readonly string[];
  /** Processes running at once, over all receivers and page connections. */
  maxChildren?: number;
  /** A process no page has asked anything of (and no stream is open to) for this long is stopped. */
  idleMs?: number;
  child?: ChildOptions;
}

export interface StdioBridge {
  handler: RequestHandler;
  /** Stops every process (stdin, SIGTERM, SIGKILL after the grace period) and resolves once all have exited. */
  close: () => Promise<void>;
  /** The live connections, for tests and the terminal. */
  connections: () => BridgeConnection[];
}

export const MAX_CHILDREN = 4;
export const IDLE_MS = 10 * 60_000;
/** Ended connections kept so their console can still be read. */
const ENDED_KEPT = 20;

function parseMessage(
  body: Buffer,
): { ok: true; message: WireMessage } | { ok: false; code: number; why: string } {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, code: -32700, why: 'Parse error: the body is not JSON' };
  }
  if (Array.isArray(value))
    return { ok: false, code: -32600, why: 'One JSON-RPC message per request (no batches)' };
  if (!JSONRPCMessageSchema.safeParse(value).success)
    return { ok: false, code: -32600, why: 'Invalid Request: not a JSON-RPC 2.0 message' };
  return { ok: true, message: value as WireMessage };
}

export function createStdioBridge(options: StdioBridgeOptions): StdioBridge {
  const receivers = new Map(options.receivers.map((r) => [r.name, r]));
  const allowedHosts = options.allowedHosts ?? [];
  const maxChildren = options.maxChildren ?? MAX_CHILDREN;
  const idleMs = options.idleMs ?? IDLE_MS;
  const tokenMatches = tokenChecker(options.token);
  const connections = new Map<string, BridgeConnection>();
  /** Stopped or stopping processes: close() waits for them too. */
  const stopping = new Set<Promise<void>>();
  let closed = false;

  const stopConnection = (conn: BridgeConnection, reason: string) => {
    const done = conn.stop(reason);
    stopping.add(done);
    void done.finally(() => stopping.delete(done));
    return done;
  };

  const forgetEnded = () => {
    const ended = [...connections.values()].filter((c) => c.started && !c.alive);
    for (const conn of ended.slice(0, Math.max(0, ended.length - ENDED_KEPT))) connections.delete(conn.id);
  };

  const reaper = setInterval(
    () => {
      const now = Date.now();
      for (const conn of connections.values()) {
        if (conn.alive && !conn.hasOpenStream && now - conn.lastUsed > idleMs)
          void stopConnection(conn, `no page used it for ${formatMs(idleMs)}`);
      }
    },
    Math.min(30_000, Math.max(50, idleMs / 4)),
  );
  reaper.unref();

  /** The checks every route makes first; true when the request may go on. */
  const admitted = (req: Request, res: Response, methods: string[]): boolean => {
    if (!methods.includes(req.method)) {
      refuse(req, res, 405, `Method ${req.method.slice(0, 20)} not allowed here`, {
        allow: methods.join(', '),
      });
      return false;
    }
    if (!isFromOwnPage(req, allowedHosts)) {
      refuse(req, res, 403, "The stdio bridge serves Taskscope's own page only");
      return false;
    }
    if (!tokenMatches(req.headers[RELAY_HEADERS.token.toLowerCase()])) {
      refuse(req, res, 401, `Missing or wrong ${RELAY_HEADERS.token}`);
      return false;
    }
    return true;
  };

  const connectionId = (req: Request, res: Response): string | undefined => {
    const id = req.headers[CONNECTION_HEADER];
    if (typeof id === 'string' && CONNECTION_ID.test(id)) return id;
    refuse(req, res, 400, 'Missing or malformed X-Taskscope-Stdio-Connection (16 to 64 of A-Z a-z 0-9 _ -)');
    return undefined;
  };

  /** This page connection's process, started on its first MCP request; undefined when refused. */
  const connectionFor = (req: Request, res: Response, receiver: StdioReceiver, id: string) => {
    let conn = connections.get(id);
    if (conn && conn.receiver !== receiver) {
      refuse(req, res, 409, 'This connection id belongs to another stdio server');
      return undefined;
    }
    if (!conn) {
      const running = [...connections.values()].filter((c) => c.alive).length;
      if (running >= maxChildren) {
        refuse(
          req,
          res,
          503,
          `${running} stdio servers are running already, one per page connection, and ${maxChildren} is the limit: disconnect another tab, or wait (a server no page uses is stopped after ${formatMs(idleMs)}).`,
          { 'retry-after': '30' },
        );
        return undefined;
      }
      conn = new BridgeConnection(id, receiver, options.child);
      connections.set(id, conn);
      forgetEnded();
      conn.start();
    }
    conn.lastUsed = Date.now();
    if (!conn.alive) {
      // Reported, never started again by itself: a server that keeps crashing must not be restarted in a loop.
      refuse(
        req,
        res,
        410,
        `The stdio server ${conn.child?.describeEnd() ?? 'is not running'}. Restart it from its console.`,
      );
      return undefined;
    }
    return conn;
  };

  /** A session id the page sends must be this process's: another (an earlier process's) is gone (404). */
  const sessionMatches = (req: Request, res: Response, conn: BridgeConnection): boolean => {
    const sent = req.headers['mcp-session-id'];
    if (sent === undefined || sent === conn.sessionId) return true;
    sendJsonRpcError(
      res,
      404,
      -32001,
      'Session not found: the stdio server it belonged to has ended',
      null,
      SAFE_ANSWER_HEADERS,
    );
    return false;
  };

  const mcp = async (req: Request, res: Response, receiver: StdioReceiver) => {
    if (!admitted(req, res, ['POST', 'GET', 'DELETE'])) return;
    const id = connectionId(req, res);
    if (!id) return;
    if (req.method === 'DELETE') {
      const conn = connections.get(id);
      if (conn && !sessionMatches(req, res, conn)) return;
      if (conn?.alive) void stopConnection(conn, 'the page ended its session');
      res.writeHead(200, SAFE_ANSWER_HEADERS).end();
      return;
    }
    if (req.method === 'GET') {
      if (!/\btext\/event-stream\b/.test(req.headers.accept ?? '')) {
        sendJsonRpcError(
          res,
          406,
          -32000,
          'Not Acceptable: the GET stream is text/event-stream',
          null,
          SAFE_ANSWER_HEADERS,
        );
        return;
      }
      const conn = connectionFor(req, res, receiver, id);
      if (!conn || !sessionMatches(req, res, conn)) return;
      conn.openGetStream(new Outlet(res, 'sse', sessionHeader(conn.sessionId)));
      return;
    }
    const type = (req.headers['content-type'] ?? '').replace(/;.*$/s, '').trim().toLowerCase();
    if (type !== 'application/json') {
      sendJsonRpcError(
        res,
        415,
        -32600,
        'Unsupported Media Type: send application/json',
        null,
        SAFE_ANSWER_HEADERS,
      );
      return;
    }
    const body = await readBody(req, RELAY_REQUEST_LIMIT).catch(() => undefined);
    if (res.destroyed) return;
    if (body === undefined) {
      refuse(req, res, 413, `Request body too large or cut off (limit ${RELAY_REQUEST_LIMIT} bytes)`);
      return;
    }
    const parsed = parseMessage(body);
    if (!parsed.ok) {
      sendJsonRpcError(res, 400, parsed.code, parsed.why, null, SAFE_ANSWER_HEADERS);
      return;
    }
    const message = parsed.message;
    const conn = connectionFor(req, res, receiver, id);
    if (!conn || !sessionMatches(req, res, conn)) return;
    if (!('method' in message) || !('id' in message)) {
      // A notification, or the page's answer to the server's own request.
      if (!conn.forward(message))
        refuse(req, res, 410, `The stdio server ${conn.child?.describeEnd() ?? 'is not running'}`);
      else res.writeHead(202, SAFE_ANSWER_HEADERS).end();
      return;
    }
    if (!conn.canTake(message.id as string | number)) {
      sendJsonRpcError(
        res,
        409,
        -32600,
        'A request with this id is still waiting for its answer',
        message.id,
        SAFE_ANSWER_HEADERS,
      );
      return;
    }
    const session = message.method === 'initialize' ? conn.newSession() : conn.sessionId;
    const accept = req.headers.accept ?? '';
    const mode = /\btext\/event-stream\b/.test(accept) ? 'sse' : 'json';
    conn.request(message, new Outlet(res, mode, sessionHeader(session)));
  };

  const consoleRoute = (req: Request, res: Response, receiver: StdioReceiver) => {
    if (!admitted(req, res, ['GET'])) return;
    const id = connectionId(req, res);
    if (!id) return;
    const conn = connections.get(id);
    if (conn) conn.lastUsed = Date.now();
    const after = Number(req.query.after ?? 0);
    const snapshot =
      conn && conn.receiver === receiver
        ? conn.snapshot(Number.isSafeInteger(after) && after > 0 ? after : 0)
        : new BridgeConnection(id, receiver).snapshot(0);
    const body = JSON.stringify(snapshot);
    res.writeHead(200, {
      ...SAFE_ANSWER_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  };

  const stopRoute = (req: Request, res: Response, receiver: StdioReceiver) => {
    if (!admitted(req, res, ['POST'])) return;
    const id = connectionId(req, res);
    if (!id) return;
    const conn = connections.get(id);
    if (conn && conn.receiver === receiver) {
      connections.delete(id);
      void stopConnection(conn, 'the page stopped it');
    }
    res.writeHead(204, SAFE_ANSWER_HEADERS).end();
  };

  const handler: RequestHandler = (req, res, next) => {
    const match = /^\/stdio\/([^/]+)\/(mcp|console|stop)$/.exec(req.path);
    if (!match) {
      if (req.path === '/stdio' || req.path.startsWith('/stdio/'))
        refuse(req, res, 404, 'No such stdio route');
      else next();
      return;
    }
    const receiver = receivers.get(match[1] ?? '');
    if (!receiver || closed) {
      refuse(req, res, 404, 'No stdio server by that name: they are named on the command line');
      return;
    }
    if (match[2] === 'mcp') void mcp(req, res, receiver).catch((error: unknown) => failed(req, res, error));
    else if (match[2] === 'console') consoleRoute(req, res, receiver);
    else stopRoute(req, res, receiver);
  };

  return {
    handler,
    connections: () => [...connections.values()],
    close: async () => {
      closed = true;
      clearInterval(reaper);
      for (const conn of connections.values())
        if (conn.alive) void stopConnection(conn, 'Taskscope is stopping');
      await Promise.all([...stopping]);
    },
  };
}

function sessionHeader(session: string | undefined): Record<string, string> {
  return session ? { 'mcp-session-id': session } : {};
}

function failed(req: IncomingMessage, res: ServerResponse, error: unknown): void {
  console.error(error);
  if (!res.headersSent)
    refuse(req as Request, res as Response, 500, 'The stdio bridge failed on this request');
  else res.destroy();
}
