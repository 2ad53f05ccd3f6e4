/**
 * What the proxy itself answers (never the upstream's): JSON-RPC errors a client can read, with the same two
 * headers as every proxied answer, so that no answer on the page's origin is ever rendered as a page.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADDED_ANSWER_HEADERS } from './headers.js';

/** A JSON-RPC id read from a request body: the id of a JSON object that has one, else null. */
export function requestId(body: Buffer): string | number | null {
  try {
    const message: unknown = JSON.parse(body.toString('utf8'));
    if (message && typeof message === 'object' && !Array.isArray(message) && 'id' in message) {
      const id = (message as { id: unknown }).id;
      if (typeof id === 'string' || typeof id === 'number') return id;
    }
  } catch {
    // not JSON: no id
  }
  return null;
}

export function answerError(
  res: ServerResponse,
  status: number,
  id: string | number | null,
  code: number,
  message: string,
): void {
  if (res.writableEnded || res.destroyed) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
  const headers: string[] = [
    'Content-Type',
    'application/json',
    'Content-Length',
    String(Buffer.byteLength(body)),
  ];
  for (const [name, value] of ADDED_ANSWER_HEADERS) headers.push(name, value);
  res.writeHead(status, headers);
  res.end(body);
}

/** A refusal before anything went up: the request's body is read and dropped so the answer is not lost to a reset. */
export function refuseRequest(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: string,
): void {
  req.resume();
  answerError(res, status, null, -32000, `Taskscope proxy: ${message}`);
}
