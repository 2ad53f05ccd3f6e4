/**
 * Serves MCP 2025-11-25 tasks over Streamable HTTP with plain `node:http`, no SDK, one **case** at a time: the
 * demo receiver hands a request with `?faults=` here (handleFaults), served by the faults case (faults.ts) for
 * that set of faults. The hostile receiver (test/servers/hostile/) serves its own cases through the same handler.
 *
 * Every timer belongs to a held-open request or stream and stops with it; `end()` ends them all.
 */
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { refusal } from '../guard.js';
import {
  type CaseSpec,
  type CaseState,
  CORS_ALLOW_HEADERS,
  CORS_EXPOSE_HEADERS,
  Held,
  isId,
  isRecord,
  MAX_ARRIVALS,
  MAX_TRACKED_IDS,
  newCounter,
  readBody,
  type Rpc,
  sendJson,
  startSse,
  STREAM_PING_MS,
} from './wire.js';
import { FAULT_DESCRIPTIONS, faultSpec, parseFaults, type FaultName } from './faults.js';
import { answerMethod } from './methods.js';

/** Fault sets served at once at most; each keeps its own tasks. */
const MAX_FAULT_CASES = 100;

export interface FaultsHandler {
  /** Every held-open request and stream. */
  held: Set<Held>;
  /** A case in its starting state: no task yet, then seeded. */
  newCase(name: string, description: string, spec: CaseSpec): CaseState;
  /** Clears a case's counts and recreates its tasks. */
  resetCase(c: CaseState): void;
  /** Host and Origin checks, CORS headers; false when the request was refused (and answered). */
  guard(req: IncomingMessage, res: ServerResponse): boolean;
  /** Serves one request, already guarded, with case `c`. */
  serve(c: CaseState, req: IncomingMessage, res: ServerResponse): Promise<void> | void;
  /** The faults case for this set of faults, made on first use; undefined (and answered) when refused. */
  faultCase(text: string, res: ServerResponse): CaseState | undefined;
  /** Serves one request with the faults case for `faults` (comma-separated names), whatever its path. */
  handleFaults(req: IncomingMessage, res: ServerResponse, faults: string): Promise<void>;
  /** Ends every held-open request and stream; later requests are dropped. */
  end(): void;
}

export function createFaultsHandler(): FaultsHandler {
  const held = new Set<Held>();
  const faultCases = new Map<string, CaseState>();
  let closed = false;

  const resetCase = (c: CaseState) => {
    c.resetAt = Date.now();
    c.counter = newCounter();
    c.listed = c.spec.seed(c.resetAt);
    c.byId = new Map(c.listed.map((t) => [t.taskId, t]));
    c.created = 0;
  };
  /** Every case, named or a set of faults, starts alike: no task yet, then seeded. */
  const newCase = (name: string, description: string, spec: CaseSpec): CaseState => {
    const c: CaseState = {
      name,
      description,
      spec,
      listed: [],
      byId: new Map(),
      resetAt: 0,
      counter: newCounter(),
      open: 0,
      waiters: new Map(),
      created: 0,
    };
    resetCase(c);
    return c;
  };
  const countGet = (c: CaseState, taskId: string) => {
    const entry = c.counter.tasksGet.get(taskId);
    if (entry) {
      entry.count++;
      if (entry.at.length < MAX_ARRIVALS) entry.at.push(Date.now());
    } else if (c.counter.tasksGet.size < MAX_TRACKED_IDS) {
      c.counter.tasksGet.set(taskId, { count: 1, at: [Date.now()] });
    } else {
      c.counter.tasksGetUntracked++;
    }
  };

  const openStream = (c: CaseState, res: ServerResponse) => {
    if (c.spec.stream) return c.spec.stream(c, res);
    startSse(res);
    const stream = new Held(held, c, res);
    stream.write(': stream open\n\n');
    stream.every(STREAM_PING_MS, () => stream.write(': ping\n\n'));
    c.spec.onStreamOpen?.(c, stream);
  };

  const request = (rpc: Rpc, method: string): void => answerMethod(rpc, method, { held, countGet });

  const post = async (c: CaseState, req: IncomingMessage, res: ServerResponse) => {
    c.counter.POST++;
    const body = await readBody(req);
    if (closed) return void res.destroy();
    if (body === null)
      return sendJson(res, 413, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Body too large' },
      });
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return sendJson(res, 400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error' },
      });
    }
    if (!isRecord(message)) {
      return sendJson(res, 400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: one JSON-RPC message per POST (no batches)' },
      });
    }
    if (message.method === undefined && ('result' in message || 'error' in message)) {
      c.counter.responses++;
      res.writeHead(202).end();
      return;
    }
    if (typeof message.method !== 'string') {
      return sendJson(res, 400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request' },
      });
    }
    const method = message.method;
    c.counter.methods.set(method, (c.counter.methods.get(method) ?? 0) + 1);
    if (!isId(message.id)) {
      res.writeHead(202).end();
      return;
    }
    const params = isRecord(message.params) ? message.params : {};
    request({ c, res, id: message.id, params }, method);
  };

  /** Host and Origin checks, CORS headers; false when the request was refused. */
  const guard = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (closed) {
      res.destroy();
      return false;
    }
    // Only pages on this machine, and no rebinding name: a hostile receiver for tests, not for the network.
    const refused = refusal(req.headers, { allowedHosts: [], pages: 'local' });
    if (refused?.what === 'host') {
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end(`Forbidden: ${refused.message}\n`);
      return false;
    }
    if (refused) {
      sendJson(res, 403, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: `Forbidden: ${refused.message}` },
      });
      return false;
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
    }
    return true;
  };

  /** The faults case for this set of faults, made on first use; undefined (and answered) when refused. */
  const faultCase = (text: string, res: ServerResponse): CaseState | undefined => {
    const { faults, unknown } = parseFaults(text);
    if (unknown.length > 0) {
      sendJson(res, 400, {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: `Unknown faults: ${unknown.join(', ')}`,
          data: { faults: FAULT_DESCRIPTIONS },
        },
      });
      return undefined;
    }
    const name = `faults?${faults.join(',')}`;
    let c = faultCases.get(name);
    if (c) return c;
    if (faultCases.size >= MAX_FAULT_CASES) {
      sendJson(res, 503, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: 'Too many fault sets' },
      });
      return undefined;
    }
    c = newCase(
      name,
      faults.length > 0
        ? `breaks ${faults.map((f: FaultName) => `${f} (${FAULT_DESCRIPTIONS[f]})`).join('; ')}`
        : 'follows every rule the report card judges',
      faultSpec(faults, held),
    );
    faultCases.set(name, c);
    return c;
  };

  const serve = (c: CaseState, req: IncomingMessage, res: ServerResponse): Promise<void> | void => {
    switch (req.method) {
      case 'OPTIONS':
        c.counter.OPTIONS++;
        res.writeHead(204, {
          'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
          'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS,
        });
        res.end();
        return;
      case 'POST':
        return post(c, req, res);
      case 'GET':
        if (!/text\/event-stream/.test(req.headers.accept ?? '')) {
          res.writeHead(405, { Allow: 'POST, DELETE' }).end();
          return;
        }
        c.counter.GET++;
        return openStream(c, res);
      case 'DELETE':
        c.counter.DELETE++;
        res.writeHead(200).end();
        return;
      default:
        res.writeHead(405, { Allow: 'GET, POST, DELETE, OPTIONS' }).end();
    }
  };

  const handleFaults = async (req: IncomingMessage, res: ServerResponse, faults: string) => {
    if (!guard(req, res)) return;
    const c = faultCase(faults, res);
    if (c) await serve(c, req, res);
  };

  return {
    held,
    newCase,
    resetCase,
    guard,
    serve,
    faultCase,
    handleFaults,
    end: () => {
      closed = true;
      for (const h of [...held]) h.end();
    },
  };
}
