/**
 * A 2025-11-25 recording on the wire (Streamable HTTP): a session per initialize, the GET stream for status
 * pushes, tasks/result blocking (as an SSE answer when the client accepts one) and carrying the recorded
 * questions as elicitation/create (or sampling) requests with the task's related-task `_meta`. The client's
 * answer to a question, POSTed back as a JSON-RPC response, lets the task go on.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  acceptsEventStream,
  errorObject,
  isRecord,
  openSse,
  rpc,
  sendJson,
  type JsonRpcId,
  type SseStream,
} from './json-rpc';
import type { Playback, ServedTask } from './playback';
import type { ToolInfo } from '../../mcp';
import { RELATED_TASK, type Plan, type Recording } from './recording';

const MAX_SESSIONS = 100;
const MAX_STREAMS = 100;
/** Questions kept for a task until a stream opens to carry them. */
const MAX_UNDELIVERED = 20;

interface Session {
  id: string;
  streams: Set<SseStream>;
  lastSeen: number;
}

export interface WireContext {
  recording: Recording;
  playback: Playback;
  /** The recorded tools that ran as tasks. */
  tools: ToolInfo[];
  /** The next recorded run of a tool (its recorded runs in turn), or undefined for a tool not recorded. */
  planFor: (tool: string) => Plan | undefined;
  serverInfo: { name: string; version: string; title?: string };
  instructions?: string;
  /** What the recording holds, for error messages. */
  holds: () => string;
}

export function createWire2025(ctx: WireContext) {
  const { playback } = ctx;
  const sessions = new Map<string, Session>();
  const resultStreams = new Map<string, Set<SseStream>>();
  const asked = new Map<string, { taskId: string; key: string }>();
  const undelivered = new Map<string, unknown[]>();
  let streamCount = 0;
  let nextQuestion = 0;

  const wire = (task: ServedTask) => {
    const state = playback.current(task);
    return {
      taskId: task.taskId,
      status: state.status,
      ...(state.statusMessage !== undefined ? { statusMessage: state.statusMessage } : {}),
      createdAt: new Date(task.createdAt).toISOString(),
      lastUpdatedAt: new Date(task.updatedAt).toISOString(),
      ttl: task.plan.ttl,
      pollInterval: state.pollInterval,
    };
  };
  const related = (task: ServedTask) => ({ [RELATED_TASK]: { taskId: task.taskId } });

  const streamsFor = (task: ServedTask): SseStream[] => [
    ...(resultStreams.get(task.taskId) ?? []),
    ...(sessions.get(task.sessionId ?? '')?.streams ?? []),
  ];
  const deliver = (task: ServedTask, message: unknown) => {
    const stream = streamsFor(task).find((s) => !s.closed);
    if (stream) return stream.send(message);
    const queue = undelivered.get(task.taskId) ?? [];
    if (queue.length < MAX_UNDELIVERED) queue.push(message);
    undelivered.set(task.taskId, queue);
  };
  const flush = (task: ServedTask) => {
    const queue = undelivered.get(task.taskId);
    if (!queue) return;
    undelivered.delete(task.taskId);
    for (const message of queue) deliver(task, message);
  };

  const unsubscribe = playback.subscribe((event) => {
    const { task } = event;
    if (event.type === 'removed') {
      undelivered.delete(task.taskId);
      for (const [id, q] of asked) if (q.taskId === task.taskId) asked.delete(id);
    } else if (event.type === 'asked') {
      const id = `taskscope-serve-${++nextQuestion}`;
      asked.set(id, { taskId: task.taskId, key: event.question.key });
      const params = event.question.params;
      const meta = isRecord(params._meta) ? params._meta : {};
      deliver(task, {
        jsonrpc: '2.0',
        id,
        method: event.question.method,
        params: { ...params, _meta: { ...meta, ...related(task) } },
      });
    } else if (ctx.recording.pushes) {
      const message = { jsonrpc: '2.0', method: 'notifications/tasks/status', params: wire(task) };
      for (const stream of sessions.get(task.sessionId ?? '')?.streams ?? []) stream.send(message);
    }
  });

  const known = (params: Record<string, unknown>): ServedTask => {
    const task = playback.get(String(params.taskId ?? ''));
    if (!task) throw rpc(-32602, 'Failed to retrieve task: Task not found');
    return task;
  };

  const newSession = (): Session => {
    while (sessions.size >= MAX_SESSIONS) {
      const oldest = [...sessions.values()].sort((a, b) => a.lastSeen - b.lastSeen)[0];
      if (!oldest) break;
      for (const stream of oldest.streams) stream.end();
      sessions.delete(oldest.id);
    }
    const session: Session = { id: randomUUID(), streams: new Set(), lastSeen: Date.now() };
    sessions.set(session.id, session);
    return session;
  };

  type Handler = (
    params: Record<string, unknown>,
    call: { req: IncomingMessage; res: ServerResponse; id: JsonRpcId; session?: Session },
  ) => Promise<unknown> | unknown;

  const methods: Record<string, Handler> = {
    initialize: () => ({
      protocolVersion: '2025-11-25',
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      serverInfo: ctx.serverInfo,
      ...(ctx.instructions ? { instructions: ctx.instructions } : {}),
    }),
    ping: () => ({}),
    'tools/list': () => ({
      tools: ctx.tools.map((t) => ({
        name: t.name,
        ...(t.title ? { title: t.title } : {}),
        ...(t.description ? { description: t.description } : {}),
        inputSchema: t.inputSchema,
        execution: { taskSupport: 'required' },
      })),
    }),
    'tools/call': (params, { session }) => {
      const name = String(params.name ?? '');
      const plan = ctx.planFor(name);
      if (!plan) throw rpc(-32602, `Unknown tool ${name.slice(0, 100)}. ${ctx.holds()}`);
      if (!isRecord(params.task))
        throw rpc(-32601, `${name} was recorded as a task only: call it with a task. ${ctx.holds()}`);
      const task = playback.start(plan, session?.id);
      return { task: wire(task) };
    },
    'tasks/get': (params) => wire(known(params)),
    // One page always (playback keeps at most maxTasks): no cursor is ever handed out, so any cursor is bogus.
    'tasks/list': (params, { session }) => {
      if (params.cursor !== undefined) throw rpc(-32602, 'Invalid params: unknown cursor');
      return {
        tasks: playback
          .all()
          .filter((t) => t.sessionId === session?.id)
          .map(wire),
      };
    },
    'tasks/cancel': (params) => {
      const task = known(params);
      if (!playback.cancel(task))
        throw rpc(-32602, `Task ${task.taskId} has already ended: it cannot be cancelled`);
      return wire(task);
    },
    'tasks/result': async (params, { req, res, id }) => {
      const task = known(params);
      if (!playback.ended(task)) {
        if (!acceptsEventStream(req.headers.accept)) {
          const aborted = new AbortController();
          res.on('close', () => aborted.abort());
          if (!(await playback.whenEnded(task, aborted.signal))) throw rpc(-32602, 'The task is gone');
          return resultOf(task);
        }
        if (streamCount >= MAX_STREAMS) throw rpc(-32000, 'Too many open streams: close one first');
        // Blocks until the task ends, as 2025-11-25 asks; the task's questions come on this stream meanwhile.
        const set = resultStreams.get(task.taskId) ?? new Set<SseStream>();
        resultStreams.set(task.taskId, set);
        const aborted = new AbortController();
        streamCount++;
        const stream = openSse(res, () => {
          streamCount--;
          set.delete(stream);
          if (set.size === 0) resultStreams.delete(task.taskId);
          aborted.abort();
        });
        set.add(stream);
        flush(task);
        const ended = await playback.whenEnded(task, aborted.signal);
        if (!stream.closed) {
          let answer: unknown;
          try {
            if (!ended) throw rpc(-32602, 'The task is gone');
            answer = { jsonrpc: '2.0', id, result: resultOf(task) };
          } catch (error) {
            answer = { jsonrpc: '2.0', id, error: errorObject(error) };
          }
          stream.send(answer);
          stream.end();
        }
        return STREAMED;
      }
      return resultOf(task);
    },
  };

  const resultOf = (task: ServedTask) => {
    // Cancelled by this client, or in the recording (the demo's second slow_job): no result either way.
    if (playback.current(task).status === 'cancelled')
      throw rpc(-32602, `Task ${task.taskId} was cancelled: it has no result`);
    const result = task.plan.ending?.result;
    if (!result) throw rpc(-32603, 'The recording holds no result for this task');
    const meta = isRecord(result._meta) ? result._meta : {};
    return { ...result, _meta: { ...meta, ...related(task) } };
  };

  /** A POSTed message: a request answered here, a notification (202), or the answer to one of our questions. */
  const post = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const message = isRecord(body) ? body : {};
    const sessionHeader = req.headers['mcp-session-id'];
    const method = typeof message.method === 'string' ? message.method : undefined;
    let session: Session | undefined;
    if (typeof sessionHeader === 'string' && method !== 'initialize') {
      session = sessions.get(sessionHeader);
      if (!session) return sendJson(res, 404, error(null, -32001, 'Session not found: initialize again'));
      session.lastSeen = Date.now();
    }
    const id = message.id;
    if (method === undefined && (typeof id === 'string' || typeof id === 'number')) {
      const question = asked.get(String(id));
      asked.delete(String(id));
      // An error is no answer (a client without elicitation says so): the task keeps waiting, as it would have.
      const task = question && 'result' in message ? playback.get(question.taskId) : undefined;
      if (task && question) playback.answer(task, question.key);
      res.writeHead(202).end();
      return;
    }
    if (typeof id !== 'string' && typeof id !== 'number') {
      res.writeHead(202).end();
      return;
    }
    const params = isRecord(message.params) ? message.params : {};
    const handler = methods[method ?? ''];
    const headers: Record<string, string> = {};
    if (method === 'initialize') {
      session = newSession();
      headers['mcp-session-id'] = session.id;
    }
    try {
      if (!handler) throw rpc(-32601, `Method not found: ${String(method).slice(0, 100)}. ${ctx.holds()}`);
      const result = await handler(params, { req, res, id, session });
      if (result !== STREAMED) sendJson(res, 200, { jsonrpc: '2.0', id, result }, headers);
    } catch (caught) {
      sendJson(res, 200, { jsonrpc: '2.0', id, error: errorObject(caught) }, headers);
    }
  };

  /** GET: the session's stream of status pushes and of questions no tasks/result stream carries. */
  const get = (req: IncomingMessage, res: ServerResponse) => {
    if (!acceptsEventStream(req.headers.accept)) {
      res.writeHead(406).end();
      return;
    }
    const session = sessions.get(String(req.headers['mcp-session-id'] ?? ''));
    if (!session) return sendJson(res, 404, error(null, -32001, 'Session not found: initialize again'));
    if (streamCount >= MAX_STREAMS)
      return sendJson(res, 503, error(null, -32000, 'Too many open streams: close one first'));
    streamCount++;
    const stream = openSse(res, () => {
      streamCount--;
      session.streams.delete(stream);
    });
    session.streams.add(stream);
    for (const task of playback.all()) if (task.sessionId === session.id) flush(task);
  };

  const del = (req: IncomingMessage, res: ServerResponse) => {
    const session = sessions.get(String(req.headers['mcp-session-id'] ?? ''));
    if (session) {
      for (const stream of session.streams) stream.end();
      sessions.delete(session.id);
    }
    res.writeHead(session ? 200 : 404).end();
  };

  const close = () => {
    unsubscribe();
    for (const session of sessions.values()) for (const stream of session.streams) stream.end();
    for (const set of resultStreams.values()) for (const stream of set) stream.end();
    sessions.clear();
  };

  return { post, get, delete: del, close };
}

/** A handler's way of saying it wrote its own answer (an SSE stream). */
const STREAMED = Symbol('streamed');

const error = (id: JsonRpcId | null, code: number, message: string) => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});
