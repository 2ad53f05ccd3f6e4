import { randomUUID } from 'node:crypto';
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { REQUEST_BODY_LIMIT, jsonRpcErrors, sendJsonRpcError } from '../json-rpc-http.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks';
import { isInitializeRequest, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { DemoTaskStore } from './task-store.js';
import { registerDemoTools } from './tools.js';
import { refusePlainCallsOfTaskRequiredTools } from './task-required.js';
import { receiverGuard } from '../guard.js';
import { createFaultsHandler, type FaultsHandler } from '../demo-faults/handler.js';

export const DEMO_SERVER_INFO = {
  name: 'taskscope-demo',
  title: 'Taskscope demo receiver',
  version: '0.1.0',
};

/** One SDK session and everything it owns; closing it must leave no timer behind. */
interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  store: DemoTaskStore;
  lastSeen: number;
}

export interface DemoReceiverOptions {
  /** Origins allowed besides loopback ones (e.g. the dashboard's own, when it is served elsewhere). */
  allowedOrigins?: string[];
  /** Host names allowed besides loopback ones (DNS rebinding guard), e.g. from ALLOWED_HOSTS. */
  allowedHosts?: string[];
  /** Oldest idle sessions are closed beyond this many, so a long-running demo does not grow without end. */
  maxSessions?: number;
  /**
   * Off: no CORS headers and no preflight answer, like most servers built on the SDK without CORS
   * middleware (the Origin check stays). A page on another origin then cannot read its answers, which is
   * what Taskscope's local relay is for (npm run receiver -- --no-cors).
   */
  cors?: boolean;
  /**
   * Rules to break on every request (`npm run receiver -- --faults=a,b`); a request's own `?faults=a,b` wins.
   * Such requests are served by the faults case (demo-faults/faults.ts), not by the SDK.
   */
  faults?: string;
}

export interface DemoReceiver {
  router: Router;
  sessionCount: () => number;
  close: () => Promise<void>;
}

/** CORS for a page on an allowed origin: the MCP headers in, the session and retry headers (and any extra) out. */
export function setDemoCors(res: Response, origin: string, exposeToo: string[] = []): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
  res.setHeader(
    'Access-Control-Allow-Headers',
    'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id',
  );
  res.setHeader(
    'Access-Control-Expose-Headers',
    ['mcp-session-id', 'mcp-protocol-version', 'retry-after', ...exposeToo].join(', '),
  );
}

function isJsonRpcMessage(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.length > 0 && messages.every((m) => JSONRPCMessageSchema.safeParse(m).success);
}

function createSessionServer(): { server: McpServer; store: DemoTaskStore } {
  const store = new DemoTaskStore();
  const server = new McpServer(DEMO_SERVER_INFO, {
    capabilities: {
      tools: {},
      // slow_job logs a line per task (notifications/message naming the task in its related-task _meta).
      logging: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    },
    instructions: 'Demo receiver for Taskscope: every tool but echo runs as an MCP task.',
    taskStore: store,
    taskMessageQueue: new InMemoryTaskMessageQueue(),
  });
  registerDemoTools(server, store);
  refusePlainCallsOfTaskRequiredTools(server);
  return { server, store };
}

/**
 * The demo receiver as an Express router: Streamable HTTP with one SDK session per Mcp-Session-Id, the Origin
 * check the transport spec asks for, and CORS so a dashboard on another loopback port can read the session id.
 */
export function createDemoReceiver(options: DemoReceiverOptions = {}): DemoReceiver {
  const allowed = options.allowedOrigins ?? [];
  const allowedHosts = options.allowedHosts ?? [];
  const maxSessions = options.maxSessions ?? 200;
  const sessions = new Map<string, Session>();

  const closeSession = async (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    session.store.cleanup();
    await session.server.close().catch(() => undefined);
  };

  const evictIfFull = async () => {
    while (sessions.size >= maxSessions) {
      const oldest = [...sessions.entries()].sort((a, b) => a[1].lastSeen - b[1].lastSeen)[0];
      if (!oldest) return;
      await closeSession(oldest[0]);
    }
  };

  const router = express.Router();
  let faultsHandler: FaultsHandler | undefined;
  const faultsOf = (req: Request): string | undefined =>
    typeof req.query.faults === 'string' ? req.query.faults : options.faults;
  router.use(
    receiverGuard({
      allowedHosts,
      allowedOrigins: allowed,
      cors: options.cors,
      sendError: sendJsonRpcError,
      setCors: (_req, res, origin) => setDemoCors(res, origin),
    }),
  );

  // Before any body parser: the faults case reads the body itself.
  router.use((req: Request, res: Response, next: NextFunction) => {
    const faults = faultsOf(req);
    if (faults === undefined) return next();
    faultsHandler ??= createFaultsHandler();
    faultsHandler.handleFaults(req, res, faults).catch(next);
  });

  const requireJson = (req: Request, res: Response, next: NextFunction) => {
    // Without this, a text/plain body would reach the handler unparsed and fail with a misleading message.
    if (req.is('application/json') === false) {
      sendJsonRpcError(res, 415, -32600, 'Invalid Request: Content-Type must be application/json');
      return;
    }
    next();
  };

  // Only POST carries a body worth reading; next() from here goes on to the handler below.
  router.post('/', requireJson, express.json({ limit: REQUEST_BODY_LIMIT }));
  router.post('/', async (req: Request, res: Response) => {
    const sessionId = req.header('mcp-session-id');
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) {
        sendJsonRpcError(res, 404, -32001, 'Session not found: initialize again');
        return;
      }
      session.lastSeen = Date.now();
      await session.transport.handleRequest(req, res, req.body);
      return;
    }
    if (!isJsonRpcMessage(req.body)) {
      sendJsonRpcError(res, 400, -32600, 'Invalid Request: the body is not a JSON-RPC message');
      return;
    }
    if (!isInitializeRequest(req.body)) {
      sendJsonRpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id and not an initialize request');
      return;
    }
    await evictIfFull();
    const { server, store } = createSessionServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, store, lastSeen: Date.now() });
      },
      onsessionclosed: (id) => {
        void closeSession(id);
      },
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  const withSession = async (req: Request, res: Response) => {
    const session = sessions.get(req.header('mcp-session-id') ?? '');
    if (!session) {
      sendJsonRpcError(res, 404, -32001, 'Session not found: initialize again');
      return;
    }
    session.lastSeen = Date.now();
    await session.transport.handleRequest(req, res);
  };
  router.get('/', withSession);
  router.delete('/', withSession);
  router.use((req: Request, res: Response) => {
    if (req.path !== '/') {
      sendJsonRpcError(res, 404, -32600, 'Not found: the MCP endpoint has no sub-paths');
      return;
    }
    res.setHeader('Allow', 'GET, POST, DELETE, OPTIONS');
    sendJsonRpcError(res, 405, -32600, `Method ${req.method} not allowed`);
  });
  router.use(jsonRpcErrors);

  return {
    router,
    sessionCount: () => sessions.size,
    close: async () => {
      faultsHandler?.end();
      await Promise.all([...sessions.keys()].map(closeSession));
    },
  };
}
