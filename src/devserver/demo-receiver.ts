import { randomUUID } from 'node:crypto';
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { DemoTaskStore } from './demo-task-store.js';
import { registerDemoTools } from './demo-tools.js';

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
  /** Oldest idle sessions are closed beyond this many, so a long-running demo does not grow without end. */
  maxSessions?: number;
}

export interface DemoReceiver {
  router: Router;
  sessionCount: () => number;
  close: () => Promise<void>;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isAllowedOrigin(origin: string | undefined, extra: readonly string[]): boolean {
  // No Origin header: not a browser page (curl, Node clients), so no cross-site risk to guard against.
  if (origin === undefined) return true;
  if (extra.includes(origin)) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname);
  } catch {
    return false;
  }
}

function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

function createSessionServer(): { server: McpServer; store: DemoTaskStore } {
  const store = new DemoTaskStore();
  const server = new McpServer(DEMO_SERVER_INFO, {
    capabilities: {
      tools: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    },
    instructions: 'Demo receiver for Taskscope: every tool but echo runs as an MCP task.',
    taskStore: store,
    taskMessageQueue: new InMemoryTaskMessageQueue(),
  });
  registerDemoTools(server, store);
  return { server, store };
}

/**
 * The demo receiver as an Express router: Streamable HTTP with one SDK session per Mcp-Session-Id, the Origin
 * check the transport spec asks for, and CORS so a dashboard on another loopback port can read the session id.
 */
export function createDemoReceiver(options: DemoReceiverOptions = {}): DemoReceiver {
  const allowed = options.allowedOrigins ?? [];
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
  router.use((req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (!isAllowedOrigin(origin, allowed)) {
      jsonRpcError(res, 403, -32000, `Origin ${String(origin)} is not allowed by this receiver`);
      return;
    }
    if (origin) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
      res.setHeader(
        'Access-Control-Allow-Headers',
        'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id',
      );
      res.setHeader('Access-Control-Expose-Headers', 'mcp-session-id, mcp-protocol-version, retry-after');
    }
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    next();
  });
  router.use(express.json({ limit: '4mb' }));

  router.post('/', async (req: Request, res: Response) => {
    const sessionId = req.header('mcp-session-id');
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) {
        jsonRpcError(res, 404, -32001, 'Session not found: initialize again');
        return;
      }
      session.lastSeen = Date.now();
      await session.transport.handleRequest(req, res, req.body);
      return;
    }
    if (!isInitializeRequest(req.body)) {
      jsonRpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id and not an initialize request');
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
      jsonRpcError(res, 404, -32001, 'Session not found: initialize again');
      return;
    }
    session.lastSeen = Date.now();
    await session.transport.handleRequest(req, res);
  };
  router.get('/', withSession);
  router.delete('/', withSession);

  return {
    router,
    sessionCount: () => sessions.size,
    close: async () => {
      await Promise.all([...sessions.keys()].map(closeSession));
    },
  };
}
