import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { REQUEST_BODY_LIMIT, jsonRpcErrors, sendJsonRpcError } from '../json-rpc-http.js';
import { receiverGuard } from '../guard.js';
import { serveThroughFetch, setCorsHeaders } from './http.js';
import { createTaskListen } from './listen.js';
import { demoServerFactory2026 } from './server.js';
import { DemoTaskStore2026 } from './task-store.js';
import { TASK_ONLY_TOOLS } from './tools.js';
import {
  MISSING_TASKS_EXTENSION,
  claimsModern,
  classify,
  declaresTasksExtension,
  envelopeOf,
  headerMismatch,
  jsonRpcError,
  requestBody,
} from './wire.js';

export { DEMO_2026_SERVER_INFO } from './server.js';

export interface DemoReceiver2026Options {
  /** Origins allowed besides loopback ones (e.g. the dashboard's own, when it is served elsewhere). */
  allowedOrigins?: string[];
  /** Host names allowed besides loopback ones (DNS rebinding guard), e.g. from ALLOWED_HOSTS. */
  allowedHosts?: string[];
  /** Off: no CORS headers and no preflight answer, like the 2025 demo's --no-cors (the Origin check stays). */
  cors?: boolean;
  /**
   * 'reject' (default): strict 2026-07-28, initialize gets -32022. 'stateless': server 2.4's dual-era default,
   * whose 2025 leg answers from a fresh instance per request and has no tasks.
   */
  legacy?: 'reject' | 'stateless';
  /** Tasks kept at once; beyond it the oldest finished one goes (the oldest of all when none has finished). */
  maxTasks?: number;
  /** SSE keep-alive comments on subscriptions/listen and the SDK's streams. */
  keepAliveMs?: number;
  /**
   * Off: subscriptions/listen is left to server 2.4's own router, which ignores task ids (it acknowledges
   * none and closes), as a stock 2.4 receiver does; clients must poll.
   */
  pushes?: boolean;
  /** Out-of-band errors from the SDK handler; by default only unexpected ones are logged. */
  onError?: (error: Error) => void;
}

export interface DemoReceiver2026 {
  router: Router;
  taskCount: () => number;
  /** Open subscriptions/listen streams for task ids. */
  listenCount: () => number;
  close: () => Promise<void>;
}

const logUnexpected = (error: Error) => {
  // The SDK reports every request it refuses (a 2025 initialize, a header mismatch): those are answers.
  if (/^(Rejected|Unsupported protocol version)/.test(error.message)) return;
  console.error('demo receiver (2026-07-28):', error);
};

/**
 * The 2026-07-28 demo receiver as an Express router: server 2.4's createMcpHandler behind the same Host,
 * Origin and CORS rules as the 2025 demo, with our task store behind the tasks extension and our own
 * subscriptions/listen for task ids.
 */
export function createDemoReceiver2026(options: DemoReceiver2026Options = {}): DemoReceiver2026 {
  const allowedOrigins = options.allowedOrigins ?? [];
  const allowedHosts = options.allowedHosts ?? [];
  const store = new DemoTaskStore2026({ maxTasks: options.maxTasks });
  const handler = createMcpHandler(demoServerFactory2026(store), {
    legacy: options.legacy ?? 'reject',
    maxRequestBodySize: REQUEST_BODY_LIMIT,
    onerror: options.onError ?? logUnexpected,
    ...(options.keepAliveMs !== undefined && { keepAliveMs: options.keepAliveMs }),
  });
  const listen = createTaskListen(store, { keepAliveMs: options.keepAliveMs });

  const router = express.Router();
  // Server 2.4 answers OPTIONS with 405 and checks no Origin: the guard does both here.
  router.use(
    receiverGuard({
      allowedHosts,
      allowedOrigins,
      cors: options.cors,
      setCors: setCorsHeaders,
      sendError: sendJsonRpcError,
    }),
  );

  const requireJson = (req: Request, res: Response, next: NextFunction) => {
    // Without this, a text/plain body would reach the handler unparsed and fail with a misleading message.
    if (req.is('application/json') === false) {
      sendJsonRpcError(res, 415, -32600, 'Invalid Request: Content-Type must be application/json');
      return;
    }
    next();
  };

  /**
   * What must be answered before the SDK sees the request: -32021 for a task-only tool (registerTool would
   * turn a thrown error into an isError result), and listen streams for task ids (the SDK drops taskIds).
   * Requests whose headers or envelope are wrong go on, so the SDK refuses them as it refuses any other.
   */
  const beforeDispatch = (req: Request, res: Response, next: NextFunction) => {
    const request = requestBody(req.body);
    if (!request || !claimsModern(request.params)) return next();
    const taskOnlyCall = request.method === 'tools/call' && TASK_ONLY_TOOLS.has(String(request.params.name));
    const filter = request.params.notifications;
    const listenForTasks =
      options.pushes !== false &&
      request.method === 'subscriptions/listen' &&
      typeof filter === 'object' &&
      filter !== null &&
      'taskIds' in filter;
    if (!taskOnlyCall && !listenForTasks) return next();
    if (classify(req).kind !== 'modern') return next();
    const mismatch = headerMismatch(req, request);
    if (mismatch) {
      // A tool call goes on to the SDK, which refuses it itself; a listen for tasks never reaches it.
      if (taskOnlyCall) return next();
      res.status(400).json(jsonRpcError(request.id, mismatch));
      return;
    }
    if (!declaresTasksExtension(envelopeOf(request.params))) {
      res.status(400).json(jsonRpcError(request.id, MISSING_TASKS_EXTENSION));
      return;
    }
    if (taskOnlyCall) return next();
    listen.serve(res, request, (filter as { taskIds: unknown }).taskIds);
  };

  const forward = (req: Request, res: Response) => serveThroughFetch(handler, req, res);

  router.post('/', requireJson, express.json({ limit: REQUEST_BODY_LIMIT }), beforeDispatch, forward);
  // GET and DELETE: the SDK's 405 (no session, no standalone stream in 2026-07-28).
  router.all('/', forward);
  router.use((_req: Request, res: Response) => {
    sendJsonRpcError(res, 404, -32600, 'Not found: the MCP endpoint has no sub-paths');
  });
  router.use(jsonRpcErrors);

  return {
    router,
    taskCount: () => store.size,
    listenCount: () => listen.count(),
    close: async () => {
      listen.closeAll();
      await handler.close();
      store.close();
    },
  };
}
