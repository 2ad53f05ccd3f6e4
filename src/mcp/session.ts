import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { TrafficTap } from './traffic';
import { relatedTaskId, requestDeadlineMs } from './protocol-rules';
import { guardedFetch, type FetchHooks, type InFlightRequests } from './guarded-fetch';
import { cutText, limitJson } from './json';
import type { ReceiverSession, RequestOptions } from './session-types';

export const CLIENT_INFO = { name: 'taskscope', title: 'Taskscope', version: '0.1.0' };

/**
 * What Taskscope declares. tasks: the user documents require both sides to declare it before any tasks/*
 * call; list/cancel say we can use those. elicitation and sampling: receivers ask a person through us.
 */
export const CLIENT_CAPABILITIES = {
  tasks: { list: {}, cancel: {} },
  elicitation: { form: {} },
  sampling: {},
};

export interface ServerRequest {
  id: string | number;
  method: string;
  params: Record<string, unknown>;
  /** The task it belongs to, from the related-task _meta, when it has one. */
  relatedTaskId?: string;
}
export type ServerRequestHandler = (
  request: ServerRequest,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

export interface Notification {
  method: string;
  params?: Record<string, unknown>;
}
export type NotificationListener = (notification: Notification) => void;

export interface ConnectOptions {
  url: string;
  /** Sent on every request (e.g. Authorization). */
  headers?: Record<string, string>;
  /** Defaults to the global fetch; tests and Node pass their own. */
  fetch?: typeof fetch;
  tap?: TrafficTap;
  /** Per-request timeout in ms; tasks/result may block for long on 2025-11-25 receivers, so it can be longer. */
  requestTimeoutMs?: number;
  /**
   * Take up a session this tab opened before (kept across a reload) instead of initializing: the receiver is
   * asked a ping under it, and if it no longer knows the session the connect fails with a session-lost error.
   */
  resume?: ResumeSession;
}

export interface ResumeSession {
  sessionId: string;
  protocolVersion?: string;
  /** What initialize said back then: a resumed session is not told again. */
  server: ServerDescription;
}

export interface ServerDescription {
  name: string;
  title?: string;
  version: string;
  protocolVersion?: string;
  instructions?: string;
  capabilities: Record<string, unknown>;
}

const AnyResult = z.unknown();

/** Progress tokens Taskscope sends with task-augmented calls; valid for the task's whole life (2025-11-25). */
export const TASK_PROGRESS_PREFIX = 'taskscope-progress-';
export const isTaskProgressToken = (token: unknown): token is string =>
  typeof token === 'string' && token.startsWith(TASK_PROGRESS_PREFIX);

/**
 * The SDK's own timeout for a request: a little after the fetch's deadline (guarded-fetch.ts), so that
 * deadline fires first and says what happened; the SDK's then only ends what the fetch cannot see.
 */
function sdkTimeout(method: string): number | undefined {
  const deadline = requestDeadlineMs(method);
  return deadline === undefined ? undefined : deadline + 1000;
}

/** Puts the tap between the SDK client and its transport, so it sees exactly what goes over the wire. */
export class TappedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Takes a message before the SDK client sees it; true when it was taken. */
  divert?: (message: JSONRPCMessage) => boolean;

  constructor(
    readonly inner: StreamableHTTPClientTransport,
    private readonly tap: TrafficTap,
    private readonly inFlight: InFlightRequests,
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message: JSONRPCMessage) => {
      this.tap.record('in', message);
      if (this.divert?.(message)) return;
      this.onmessage?.(message);
    };
  }
  get sessionId() {
    return this.inner.sessionId;
  }
  setProtocolVersion(version: string) {
    this.inner.setProtocolVersion(version);
  }
  start() {
    return this.inner.start();
  }
  send(message: JSONRPCMessage, options?: TransportSendOptions) {
    this.tap.record('out', message);
    // The SDK gave up on a request (its timeout, or the caller's abort): end its fetch as well.
    const cancelled = message as { method?: string; params?: { requestId?: string | number } };
    if (cancelled.method === 'notifications/cancelled' && cancelled.params?.requestId !== undefined)
      this.inFlight.get(cancelled.params.requestId)?.abort(new DOMException('cancelled', 'AbortError'));
    return this.inner.send(message, options);
  }
  close() {
    return this.inner.close();
  }
}

/**
 * One Streamable HTTP connection to a receiver, on the official SDK client. Results come back raw (unknown):
 * judging their shape is the normalisers' job, so a malformed answer becomes a warning, not a thrown schema error.
 */
export class McpSession implements ReceiverSession {
  readonly era = '2025-11-25' as const;
  readonly tap: TrafficTap;
  private readonly notificationListeners = new Set<NotificationListener>();
  private serverRequestHandler: ServerRequestHandler | undefined;
  private closed = false;
  /** Set when the session was taken up again rather than initialized. */
  private resumedServer: ServerDescription | undefined;
  onClose?: () => void;
  /** The receiver answered 404 (or 400 naming the session) to our session id: it no longer knows us. */
  onSessionLost?: () => void;
  /** The GET stream was opened (true) or refused (false): it holds one of the browser's connections. */
  onNotificationStream?: (open: boolean) => void;
  /** Each POST answered (true) or failed (false: network, deadline, 5xx), for the connection's health. */
  onOutcome?: (ok: boolean, error?: unknown) => void;

  private constructor(
    private readonly client: Client,
    private readonly transport: TappedTransport,
    tap: TrafficTap,
    readonly url: string,
    private readonly requestTimeoutMs: number,
  ) {
    this.tap = tap;
  }

  static async connect(options: ConnectOptions): Promise<McpSession> {
    const tap = options.tap ?? new TrafficTap();
    const baseFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    const hooks: FetchHooks = {};
    const inFlight: InFlightRequests = new Map();
    const inner = new StreamableHTTPClientTransport(new URL(options.url), {
      fetch: guardedFetch(baseFetch, tap, hooks, inFlight),
      requestInit: options.headers ? { headers: options.headers } : undefined,
      sessionId: options.resume?.sessionId,
    });
    const transport = new TappedTransport(inner, tap, inFlight);
    const client = new Client(CLIENT_INFO, { capabilities: CLIENT_CAPABILITIES });
    const session = new McpSession(client, transport, tap, options.url, options.requestTimeoutMs ?? 60_000);
    hooks.sessionLost = () => session.onSessionLost?.();
    hooks.notificationStream = (open) => session.onNotificationStream?.(open);
    hooks.outcome = (ok, error) => session.onOutcome?.(ok, error);
    session.install();
    // With a session id the SDK skips initialize: the resume below checks the receiver still knows it.
    await client.connect(transport);
    if (options.resume) await session.takeUp(options.resume);
    return session;
  }

  private async takeUp(resume: ResumeSession): Promise<void> {
    if (resume.protocolVersion) this.transport.setProtocolVersion(resume.protocolVersion);
    this.resumedServer = resume.server;
    try {
      await this.request('ping');
    } catch (error) {
      // The session is the receiver's (gone, or never ours to end): close without DELETE.
      await this.abandon();
      throw error;
    }
    // initialized would have opened the notification stream; a resumed session opens it here.
    void this.transport.inner.resumeStream('').catch(() => undefined);
  }

  /** True when this session was taken up again after a reload rather than initialized. */
  get resumed(): boolean {
    return this.resumedServer !== undefined;
  }

  private dispatch(event: Notification): void {
    for (const listener of this.notificationListeners) {
      try {
        listener(event);
      } catch {
        // One broken listener must not starve the others.
      }
    }
  }

  private install(): void {
    this.client.fallbackNotificationHandler = async (notification) =>
      this.dispatch({
        method: notification.method,
        params: notification.params as Record<string, unknown> | undefined,
      });
    // Progress for a task's token outlives the tools/call that sent it: the SDK would drop it as unknown.
    this.transport.divert = (message) => {
      const m = message as { method?: unknown; params?: { progressToken?: unknown } };
      if (m.method !== 'notifications/progress' || !isTaskProgressToken(m.params?.progressToken))
        return false;
      this.dispatch({ method: m.method, params: m.params as Record<string, unknown> });
      return true;
    };
    const route = async (
      request: { method: string; params?: Record<string, unknown> },
      extra: { requestId: string | number; signal: AbortSignal },
    ) => {
      const params = (request.params ?? {}) as Record<string, unknown>;
      const handler = this.serverRequestHandler;
      if (!handler) throw new Error(`Taskscope has nobody to answer ${request.method} yet`);
      return handler(
        {
          id: extra.requestId,
          method: request.method,
          // Kept in the inbox and drawn as a form: no deeper or larger than a person can answer.
          params: limitJson(params, { maxDepth: 32, maxNodes: 50_000 }).value as Record<string, unknown>,
          relatedTaskId: relatedTaskId(params),
        },
        extra.signal,
      );
    };
    // The SDK validates these results against the declared capabilities before they go back.
    this.client.setRequestHandler(ElicitRequestSchema, (request, extra) => route(request, extra) as never);
    this.client.setRequestHandler(
      CreateMessageRequestSchema,
      (request, extra) => route(request, extra) as never,
    );
    this.client.onclose = () => {
      this.closed = true;
      this.onClose?.();
    };
  }

  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  describeServer(): ServerDescription {
    if (this.resumedServer) return this.resumedServer;
    const version = this.client.getServerVersion();
    const text = (value: unknown, max: number) =>
      typeof value === 'string' ? cutText(value, max) : undefined;
    // What the receiver says of itself is untrusted too: cut to sizes a header and a card can show.
    return {
      name: text(version?.name, 200) ?? '(unnamed receiver)',
      title: text(version?.title, 200),
      version: text(version?.version, 100) ?? '?',
      protocolVersion: this.transport.inner.protocolVersion,
      instructions: text(this.client.getInstructions(), 20_000),
      capabilities: limitJson(this.client.getServerCapabilities() ?? {}, { maxDepth: 16, maxNodes: 2000 })
        .value as Record<string, unknown>,
    };
  }

  /** Sends one request and returns its raw result. Errors are thrown as they come; classify them with classifyError. */
  async request(
    method: string,
    params?: Record<string, unknown>,
    options: RequestOptions = {},
  ): Promise<unknown> {
    return this.client.request({ method, params } as never, AnyResult, {
      timeout: options.timeoutMs ?? sdkTimeout(method) ?? this.requestTimeoutMs,
      signal: options.signal,
    });
  }

  /**
   * Answers a receiver's request outside the SDK's own bookkeeping: one asked before a reload, whose handler
   * went with the old page. The receiver matches it by id, whichever POST carries it.
   */
  async respond(
    id: string | number,
    reply: { result: Record<string, unknown> } | { error: { code: number; message: string } },
  ): Promise<void> {
    await this.transport.send({ jsonrpc: '2.0', id, ...reply } as JSONRPCMessage);
  }

  onNotification(listener: NotificationListener): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  /** Who answers the receiver's own requests (elicitation, sampling); one at a time. */
  setServerRequestHandler(handler: ServerRequestHandler | undefined): void {
    this.serverRequestHandler = handler;
  }

  askPerson(request: ServerRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    const handler = this.serverRequestHandler;
    if (!handler) return Promise.reject(new Error(`Taskscope has nobody to answer ${request.method} yet`));
    return handler(request, signal);
  }

  /** Closes the streams without ending the session on the receiver: it is lost already, or another tab's. */
  async abandon(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close().catch(() => undefined);
  }

  /** Ends the session on the receiver (DELETE) and closes the streams; safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.transport.inner.terminateSession().catch(() => undefined);
    await this.client.close().catch(() => undefined);
  }
}
