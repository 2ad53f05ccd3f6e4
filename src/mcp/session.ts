import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { TrafficTap } from './traffic';
import { relatedTaskId, requestDeadlineMs } from './protocol-rules';
import { limitJson } from './json';
import { SessionBase, describeServer, openTransport, type TappedTransport } from './session-base';
import type {
  ConnectOptions,
  ReceiverSession,
  RequestOptions,
  ResumeSession,
  ServerDescription,
} from './session-types';

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

/**
 * One Streamable HTTP connection to a receiver, on the official SDK client. Results come back raw (unknown):
 * judging their shape is the normalisers' job, so a malformed answer becomes a warning, not a thrown schema error.
 */
export class McpSession extends SessionBase implements ReceiverSession {
  readonly era = '2025-11-25' as const;
  readonly tap: TrafficTap;
  private closed = false;
  /** Set when the session was taken up again rather than initialized. */
  private resumedServer: ServerDescription | undefined;
  onClose?: () => void;

  private constructor(
    private readonly client: Client,
    private readonly transport: TappedTransport,
    tap: TrafficTap,
    readonly url: string,
    private readonly requestTimeoutMs: number,
  ) {
    super();
    this.tap = tap;
  }

  static async connect(options: ConnectOptions): Promise<McpSession> {
    const { tap, hooks, transport } = openTransport(options, { sessionId: options.resume?.sessionId });
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
      return this.askPerson(
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
    return describeServer(this.client.getServerVersion() ?? {}, {
      protocolVersion: this.transport.inner.protocolVersion,
      instructions: this.client.getInstructions(),
      capabilities: this.client.getServerCapabilities(),
    });
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
