import { STATUS_CODES, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';

/** Requests are small (tool arguments are capped at 10,000 characters); only results grow past 1 MB. */
export const REQUEST_BODY_LIMIT = 1024 * 1024;

/** A refusal as every receiver here answers one: a JSON-RPC error body, never an HTML page, a stack or a path. */
export function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: unknown = null,
  headers: OutgoingHttpHeaders = {},
): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** Body-parser and handler errors as JSON-RPC: never Express's HTML page, a stack or a path. */
export const jsonRpcErrors: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const { type, status } = (err ?? {}) as { type?: unknown; status?: unknown };
  if (type === 'entity.parse.failed') {
    sendJsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
  } else if (type === 'entity.too.large') {
    sendJsonRpcError(res, 413, -32600, `Request body too large (limit ${REQUEST_BODY_LIMIT} bytes)`);
  } else if (typeof status === 'number' && status >= 400 && status < 500) {
    // Other body-parser refusals: unsupported charset, bad gzip, aborted upload; the reason is not echoed.
    sendJsonRpcError(res, status, -32600, `Invalid Request: ${STATUS_CODES[status] ?? 'bad body'}`);
  } else {
    console.error(err);
    sendJsonRpcError(res, 500, -32603, 'Internal error');
  }
};
