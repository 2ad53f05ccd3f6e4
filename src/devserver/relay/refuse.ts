/**
 * How the relay says no. One place so every refusal, from the route or from the forwarding, has the same shape:
 * a JSON-RPC error the page's client can read, never a stack, and a connection the page still gets an answer on.
 */
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import { SAFE_ANSWER_HEADERS } from './headers.js';

export function refuse(
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
  // A keep-alive socket carries many refused requests: each one's listener goes once it is done with.
  const stop = () => {
    clearTimeout(timer);
    req.off('end', stop);
    socket.off('close', stop);
  };
  req.once('end', stop);
  socket.once('close', stop);
  req.resume();
}
