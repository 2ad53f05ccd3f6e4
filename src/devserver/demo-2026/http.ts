/** Express around server 2.4's fetch-shaped handler: CORS for the new headers, the adapter, JSON-RPC errors. */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Request, Response } from 'express';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { sendJsonRpcError } from '../json-rpc-http.js';

const BASE_REQUEST_HEADERS = [
  'content-type',
  'accept',
  'authorization',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
];
// A header token after the prefix: Mcp-Param-{X} is named by the tool's x-mcp-header, so any token may come.
const PARAM_HEADER = /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]{1,100}$/;

/**
 * Access-Control-Allow-Headers takes names, not patterns ("mcp-param-*" would match nothing), so the
 * Mcp-Param-* names a preflight asks for are echoed back next to the fixed ones.
 */
export function allowedRequestHeaders(requested: string | undefined): string {
  const params = (requested ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => PARAM_HEADER.test(h));
  return [...BASE_REQUEST_HEADERS, ...new Set(params)].slice(0, 64).join(', ');
}

export function setCorsHeaders(req: Request, res: Response, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin, Access-Control-Request-Headers');
  // GET and DELETE get the SDK's 405, which a page should be able to read rather than fail on.
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
  res.setHeader(
    'Access-Control-Allow-Headers',
    allowedRequestHeaders(req.header('access-control-request-headers')),
  );
  res.setHeader('Access-Control-Expose-Headers', 'mcp-protocol-version, retry-after');
}

// Node's fetch Request refuses or mangles these; they describe this hop, not the MCP request.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'expect',
]);

/**
 * Hands one Express request to the SDK's fetch face and streams its Response back. The body was parsed (and
 * capped) by express.json, so it goes as parsedBody; the signal aborts when the client goes away, which is
 * what ends the SDK's SSE exchanges for it.
 */
export async function serveThroughFetch(handler: McpHttpHandler, req: Request, res: Response): Promise<void> {
  const controller = new AbortController();
  res.on('close', () => controller.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const url = new URL(req.originalUrl, `http://${req.headers.host ?? 'localhost'}`);
  let response: globalThis.Response;
  try {
    response = await handler.fetch(
      new Request(url, { method: req.method, headers, signal: controller.signal }),
      req.method === 'POST' ? { parsedBody: req.body as unknown } : undefined,
    );
  } catch {
    // Only a closed handler throws here (the SDK answers everything else itself): the receiver is stopping.
    if (!res.headersSent) sendJsonRpcError(res, 503, -32000, 'The demo receiver is shutting down');
    return;
  }
  if (res.destroyed) {
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  res.status(response.status);
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (!response.body) {
    res.end();
    return;
  }
  Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>)
    .on('error', () => res.destroy())
    .pipe(res);
}
