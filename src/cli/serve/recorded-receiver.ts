/**
 * A recorded trace served as a live receiver of the generation it was recorded from: a `tools/call` of a
 * recorded tool starts a task that goes through the statuses the recording observed (playback.ts), and the wire
 * of that generation (wire-2025.ts, wire-2026.ts) answers from it. Behind the same Host and Origin checks and
 * CORS as the demo receivers, so a local page (Taskscope's own) can connect too.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { setDemoCors } from '../../devserver/demo/receiver';
import { setCorsHeaders } from '../../devserver/demo-2026/http';
import { receiverGuard } from '../../devserver/guard';
import { REQUEST_BODY_LIMIT, jsonRpcErrors, sendJsonRpcError } from '../../devserver/json-rpc-http';
import type { Trace } from '../../engine/trace/schema';
import { Playback, type PlaybackEvent } from './playback';
import { readRecording, stepsOf, type Plan } from './recording';
import { createWire2025, type WireContext } from './wire-2025';
import { createWire2026 } from './wire-2026';

export { stepsOf };

export interface RecordedReceiverOptions {
  speed: number;
  /** Tasks move on only when `step()` is called. */
  step?: boolean;
  allowedHosts?: readonly string[];
  maxTasks?: number;
}

export interface RecordedReceiver {
  router: Router;
  era: '2025-11-25' | '2026-07-28';
  /** --step: moves every task that can to its next recorded status; how many moved. */
  step: () => number;
  /** What happens to the served tasks, for the terminal's lines. */
  onEvent: (listener: (event: PlaybackEvent) => void) => () => void;
  playback: Playback;
  close: () => void;
}

interface Wire {
  post: (req: Request, res: Response, body: unknown) => Promise<void> | void;
  get?: (req: Request, res: Response) => void;
  delete?: (req: Request, res: Response) => void;
  close: () => void;
}

export function createRecordedReceiver(trace: Trace, options: RecordedReceiverOptions): RecordedReceiver {
  const recording = readRecording(trace);
  const playback = new Playback({ speed: options.speed, step: options.step, maxTasks: options.maxTasks });
  const tools = trace.tools.filter((t) => recording.plans.has(t.name));
  const turn = new Map<string, number>();
  const planFor = (name: string): Plan | undefined => {
    const plans = recording.plans.get(name);
    if (!plans || plans.length === 0) return undefined;
    const index = turn.get(name) ?? 0;
    turn.set(name, index + 1);
    return plans[index % plans.length];
  };
  const server = trace.receiver.server;
  const modern = recording.era === '2026-07-28';
  const methods = modern
    ? 'server/discover, tools/list, tools/call, tasks/get, tasks/update, tasks/cancel and subscriptions/listen'
    : 'initialize, tools/list, tools/call, tasks/get, tasks/result, tasks/list and tasks/cancel';
  const ctx: WireContext = {
    recording,
    playback,
    tools,
    planFor,
    serverInfo: {
      name: `${server?.name ?? 'receiver'} (recorded, taskscope serve)`,
      version: server?.version ?? '0',
      ...(server?.title ? { title: `${server.title} (recorded)` } : {}),
    },
    instructions: server?.instructions,
    holds: () =>
      `This recording (${recording.era}) holds the tools ${tools.map((t) => t.name).join(', ') || '(none)'} (run as tasks), and answers ${methods}.`,
  };
  const wire: Wire = modern
    ? createWire2026({ ...ctx, capabilities: server?.capabilities })
    : createWire2025(ctx);

  const router = express.Router();
  router.use(
    receiverGuard({
      allowedHosts: options.allowedHosts ?? [],
      allowedOrigins: [],
      setCors: modern ? setCorsHeaders : (_req, res, origin) => setDemoCors(res, origin),
      sendError: sendJsonRpcError,
    }),
  );
  router.post('/', (req: Request, res: Response, next: NextFunction) => {
    // Without this, a text/plain body would reach the wire unparsed and be taken for a notification.
    if (req.is('application/json') === false)
      return sendJsonRpcError(res, 415, -32600, 'Invalid Request: Content-Type must be application/json');
    next();
  });
  router.post('/', express.json({ limit: REQUEST_BODY_LIMIT }), (req: Request, res: Response) => {
    void Promise.resolve(wire.post(req, res, req.body as unknown)).catch(() => {
      // Once an answer has started, a status cannot be sent any more: the connection is ended instead.
      if (res.headersSent) res.destroy();
      else sendJsonRpcError(res, 500, -32603, 'Internal error');
    });
  });
  router.get('/', (req: Request, res: Response) => {
    if (wire.get) return wire.get(req, res);
    sendJsonRpcError(res, 405, -32000, 'Method not allowed: 2026-07-28 has no standalone stream', null, {
      allow: 'POST',
    });
  });
  router.delete('/', (req: Request, res: Response) => {
    if (wire.delete) return wire.delete(req, res);
    sendJsonRpcError(res, 405, -32000, 'Method not allowed: 2026-07-28 has no session', null, {
      allow: 'POST',
    });
  });
  router.use((_req: Request, res: Response) => {
    sendJsonRpcError(res, 404, -32600, 'Not found: the MCP endpoint is /mcp');
  });
  router.use(jsonRpcErrors);

  return {
    router,
    era: recording.era,
    step: () => playback.step(),
    onEvent: (listener) => playback.subscribe(listener),
    playback,
    close: () => {
      wire.close();
      playback.close();
    },
  };
}
