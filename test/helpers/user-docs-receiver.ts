import http from 'node:http';
import { randomUUID } from 'node:crypto';

/**
 * A receiver that speaks the user documents' dialect, which no real server we can start does: tasks/get
 * wrapped as {task}, tasks/result as {taskId, status, result} and -32602 before a task is terminal, -32429
 * when polled faster than its pollInterval, pushes as notifications/tasks/updated, "Task has expired" after
 * the ttl. It answers plain JSON (not SSE), and pushes on the GET stream. Loopback only.
 */
export interface UserDocsTask {
  taskId: string;
  createdAt: number;
  finishAt: number;
  outcome: 'completed' | 'failed';
  ttl: number;
  pollInterval: number;
  lastPollAt?: number;
  pushedStatus?: string;
}

export interface UserDocsReceiver {
  url: string;
  tasks: Map<string, UserDocsTask>;
  /** Counts of what clients did, for assertions. */
  stats: { resultBeforeTerminal: number; rateLimited: number; gets: number; authorization?: string };
  /** Answer the next tasks/get with -32429 whatever its timing. */
  forceRateLimitOnce: () => void;
  close: () => Promise<void>;
}

const json = (
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/** cors: answer browsers' preflights and expose Mcp-Session-Id; without it a page cannot talk to this receiver. */
export async function startUserDocsReceiver(options: { cors?: boolean } = {}): Promise<UserDocsReceiver> {
  const tasks = new Map<string, UserDocsTask>();
  const streams = new Set<http.ServerResponse>();
  const stats: UserDocsReceiver['stats'] = { resultBeforeTerminal: 0, rateLimited: 0, gets: 0 };
  let forceRateLimit = false;
  const sessionId = randomUUID();

  const statusOf = (t: UserDocsTask, now = Date.now()) => (now >= t.finishAt ? t.outcome : 'working');
  const expired = (t: UserDocsTask, now = Date.now()) => now >= t.finishAt + t.ttl;
  const view = (t: UserDocsTask) => ({
    taskId: t.taskId,
    status: statusOf(t),
    statusMessage: statusOf(t) === 'working' ? 'crunching' : `ended ${statusOf(t)}`,
    createdAt: new Date(t.createdAt).toISOString(),
    lastUpdatedAt: new Date(
      Math.min(Date.now(), statusOf(t) === 'working' ? t.createdAt : t.finishAt),
    ).toISOString(),
    ttl: t.ttl,
    pollInterval: t.pollInterval,
  });

  // Pushes a notifications/tasks/updated whenever a task's status moves.
  const pusher = setInterval(() => {
    for (const t of tasks.values()) {
      const status = statusOf(t);
      if (t.pushedStatus === status || expired(t)) continue;
      t.pushedStatus = status;
      const data = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tasks/updated', params: view(t) });
      for (const stream of streams) stream.write(`event: message\ndata: ${data}\n\n`);
    }
  }, 20);

  const handle = (
    message: { id?: number | string; method?: string; params?: Record<string, unknown> },
    res: http.ServerResponse,
  ) => {
    const { id, method, params = {} } = message;
    const reply = (result: unknown) =>
      json(res, 200, { jsonrpc: '2.0', id, result }, { 'mcp-session-id': sessionId });
    const fail = (code: number, text: string) =>
      json(res, 200, { jsonrpc: '2.0', id, error: { code, message: text } });
    const task = typeof params.taskId === 'string' ? tasks.get(params.taskId) : undefined;
    switch (method) {
      case 'initialize':
        return reply({
          protocolVersion: '2025-11-25',
          capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
          serverInfo: { name: 'user-docs-receiver', version: '1.0.0' },
        });
      case 'tools/list':
        return reply({
          tools: [
            {
              name: 'job',
              inputSchema: { type: 'object', properties: {} },
              execution: { taskSupport: 'required' },
            },
          ],
        });
      case 'tools/call': {
        const args = (params.arguments ?? {}) as {
          durationMs?: number;
          outcome?: 'completed' | 'failed';
          pollInterval?: number;
        };
        const now = Date.now();
        const t: UserDocsTask = {
          taskId: randomUUID(),
          createdAt: now,
          finishAt: now + (args.durationMs ?? 600),
          outcome: args.outcome ?? 'completed',
          ttl: ((params.task as { ttl?: number } | undefined)?.ttl ?? 5000) as number,
          pollInterval: args.pollInterval ?? 200,
          pushedStatus: 'working',
        };
        tasks.set(t.taskId, t);
        return reply({ task: view(t) });
      }
      case 'tasks/get': {
        stats.gets++;
        if (!task || expired(task)) return fail(-32602, 'Task has expired');
        const now = Date.now();
        const early = task.lastPollAt !== undefined && now - task.lastPollAt < task.pollInterval - 15;
        if (forceRateLimit || early) {
          forceRateLimit = false;
          stats.rateLimited++;
          return fail(-32429, 'Too Many Requests');
        }
        task.lastPollAt = now;
        return reply({ task: view(task) });
      }
      case 'tasks/result': {
        if (!task || expired(task)) return fail(-32602, 'Task has expired');
        if (statusOf(task) === 'working') {
          stats.resultBeforeTerminal++;
          return fail(-32602, 'Task is not in a terminal state');
        }
        return reply({
          taskId: task.taskId,
          status: statusOf(task),
          result: task.outcome === 'completed' ? { content: [{ type: 'text', text: 'all done' }] } : null,
        });
      }
      case 'tasks/list':
        return reply({ tasks: [...tasks.values()].filter((t) => !expired(t)).map(view) });
      default:
        return fail(-32601, `Method not found: ${String(method)}`);
    }
  };

  const server = http.createServer((req, res) => {
    if (options.cors) {
      res.setHeader('access-control-allow-origin', '*');
      res.setHeader('access-control-expose-headers', 'mcp-session-id');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, {
          'access-control-allow-methods': 'GET, POST, DELETE',
          'access-control-allow-headers':
            'content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id',
        });
        res.end();
        return;
      }
    }
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(': stream open\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(200).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    stats.authorization = req.headers.authorization;
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      let message: { id?: number; method?: string };
      try {
        message = JSON.parse(body) as typeof message;
      } catch {
        json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        return;
      }
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      handle(message, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    tasks,
    stats,
    forceRateLimitOnce: () => {
      forceRateLimit = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(pusher);
        for (const s of streams) s.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
