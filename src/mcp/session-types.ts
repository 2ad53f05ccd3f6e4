import type { TrafficTap } from './traffic';
import type { Era } from './types';

export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** 2026-07-28: declare no tasks extension on this request, so the receiver answers inline or refuses. */
  withoutTasks?: boolean;
}

/**
 * A session with a receiver, of either generation: McpSession (2025-11-25: initialize, Mcp-Session-Id, the
 * SDK client) or Session2026 (2026-07-28: no initialize, no session, an envelope on every request). The
 * engine and the task dialects see only this.
 */
export interface ReceiverSession {
  readonly era: Era;
  readonly url: string;
  /** Mcp-Session-Id; none in 2026-07-28 and on sessionless receivers. */
  readonly sessionId: string | undefined;
  /** Taken up again after a reload rather than initialized. */
  readonly resumed: boolean;
  describeServer(): ServerDescription;
  request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<unknown>;
  onNotification(listener: NotificationListener): () => void;
  setServerRequestHandler(handler: ServerRequestHandler | undefined): void;
  /** Hands a question to whoever answers the receiver's requests (the inbox); 2026 input requests come this way. */
  askPerson(request: ServerRequest, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** Answers a receiver's request by id outside the usual path (one asked before a reload). */
  respond(
    id: string | number,
    reply: { result: Record<string, unknown> } | { error: { code: number; message: string } },
  ): Promise<void>;
  onSessionLost?: () => void;
  onNotificationStream?: (open: boolean) => void;
  onOutcome?: (ok: boolean, error?: unknown) => void;
  /** Ends the session on the receiver where there is one to end (DELETE), and closes the streams. */
  close(): Promise<void>;
  /** Closes the streams and leaves the receiver's session as it is. */
  abandon(): Promise<void>;
}

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
