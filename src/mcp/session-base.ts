import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { guardedFetch, type FetchHooks, type InFlightRequests } from './guarded-fetch';
import { cutText, limitJson } from './json';
import type {
  ConnectOptions,
  Notification,
  NotificationListener,
  ServerDescription,
  ServerRequest,
  ServerRequestHandler,
} from './session-types';
import { TrafficTap } from './traffic';

/**
 * What the sessions of both generations share: the SDK's Streamable HTTP transport over Taskscope's guarded
 * fetch and traffic tap, the listeners of what the receiver sends unasked, and whoever answers its questions.
 */

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

/** The SDK transport as both generations open it: Taskscope's fetch (deadlines, caps, tap) under it, the tap over it. */
export function openTransport(
  options: ConnectOptions,
  more: { wrapFetch?: (fetch: typeof globalThis.fetch) => typeof globalThis.fetch; sessionId?: string } = {},
): { tap: TrafficTap; hooks: FetchHooks; inFlight: InFlightRequests; transport: TappedTransport } {
  const tap = options.tap ?? new TrafficTap();
  const hooks: FetchHooks = {};
  const inFlight: InFlightRequests = new Map();
  const guarded = guardedFetch(options.fetch ?? globalThis.fetch.bind(globalThis), tap, hooks, inFlight);
  const inner = new StreamableHTTPClientTransport(new URL(options.url), {
    fetch: more.wrapFetch ? more.wrapFetch(guarded) : guarded,
    requestInit: options.headers ? { headers: options.headers } : undefined,
    sessionId: more.sessionId,
  });
  return { tap, hooks, inFlight, transport: new TappedTransport(inner, tap, inFlight) };
}

/** Notifications out to every listener, the receiver's requests to whoever answers the person. */
export abstract class SessionBase {
  onSessionLost?: () => void;
  /** The notification stream was opened (true) or closed/refused (false): it holds one of the browser's connections. */
  onNotificationStream?: (open: boolean) => void;
  /** Each POST answered (true) or failed (false: network, deadline, 5xx), for the connection's health. */
  onOutcome?: (ok: boolean, error?: unknown) => void;
  private readonly listeners = new Set<NotificationListener>();
  private handler: ServerRequestHandler | undefined;

  onNotification(listener: NotificationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected dispatch(event: Notification): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // One broken listener must not starve the others.
      }
    }
  }

  /** Who answers the receiver's own requests (elicitation, sampling); one at a time. */
  setServerRequestHandler(handler: ServerRequestHandler | undefined): void {
    this.handler = handler;
  }

  askPerson(request: ServerRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    const handler = this.handler;
    if (!handler) return Promise.reject(new Error(`Taskscope has nobody to answer ${request.method} yet`));
    return handler(request, signal);
  }
}

/** What a receiver says of itself is untrusted too: cut to sizes a header and a card can show. */
export function describeServer(
  info: Record<string, unknown>,
  more: { protocolVersion?: string; instructions: unknown; capabilities: unknown },
): ServerDescription {
  const text = (value: unknown, max: number) => (typeof value === 'string' ? cutText(value, max) : undefined);
  const capabilities = typeof more.capabilities === 'object' && more.capabilities ? more.capabilities : {};
  return {
    name: text(info.name, 200) ?? '(unnamed receiver)',
    title: text(info.title, 200),
    version: text(info.version, 100) ?? '?',
    protocolVersion: more.protocolVersion,
    instructions: text(more.instructions, 20_000),
    capabilities: limitJson(capabilities, { maxDepth: 16, maxNodes: 2000 }).value as Record<string, unknown>,
  };
}
