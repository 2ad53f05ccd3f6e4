/** JSON-RPC over HTTP as `taskscope serve` answers it: JSON answers, SSE streams, errors without stacks. */
import type { ServerResponse } from 'node:http';

export type JsonRpcId = string | number;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const rpc = (code: number, message: string) => new RpcError(code, message);

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Anything thrown becomes a JSON-RPC error object; only our own RpcError's words reach the client. */
export function errorObject(error: unknown): { code: number; message: string } {
  return error instanceof RpcError
    ? { code: error.code, message: error.message }
    : { code: -32603, message: 'Internal error' };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(value));
}

export function acceptsEventStream(accept: string | undefined): boolean {
  return (accept ?? '').includes('text/event-stream');
}

export interface SseStream {
  send(message: unknown): void;
  end(): void;
  readonly closed: boolean;
}

/** Opens an SSE answer on `res`; `onClose` runs once, when the client goes or the stream is ended. */
export function openSse(
  res: ServerResponse,
  onClose: () => void,
  headers: Record<string, string> = {},
): SseStream {
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    onClose();
  };
  res.on('close', close);
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
  });
  // The first bytes now: a client (and any proxy) sees the stream open before the first event.
  res.write(': stream open\n\n');
  return {
    send: (message) => {
      if (!closed && !res.writableEnded) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    },
    end: () => {
      if (!res.writableEnded) res.end();
      close();
    },
    get closed() {
      return closed;
    },
  };
}
