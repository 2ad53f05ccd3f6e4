import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DeadlineExceeded, HttpStatusError } from './errors';
import { headerValue } from './header-values';
import type { InFlightRequests } from './guarded-fetch';
import { cutText, isObject, limitJson } from './json';
import {
  META_2026,
  PROTOCOL_2026,
  TASKS_EXTENSION,
  UNSUPPORTED_VERSION_CODE,
  requestDeadlineMs,
} from './protocol-rules';
import { CLIENT_INFO } from './session';
import { SessionBase, describeServer, openTransport, type TappedTransport } from './session-base';
import type { ConnectOptions, ReceiverSession, RequestOptions, ServerDescription } from './session-types';
import type { TrafficTap } from './traffic';

/**
 * What Taskscope declares on every 2026-07-28 request (there is no initialize to declare it once): the tasks
 * extension, and elicitation and sampling, since a receiver may only ask for input the request covers.
 */
export const CLIENT_CAPABILITIES_2026 = {
  elicitation: { form: {} },
  sampling: {},
  extensions: { [TASKS_EXTENSION]: {} },
};

/** A JSON-RPC error answer, with its code and data, as classifyError reads any error with a numeric code. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly httpStatus?: number,
  ) {
    super(message);
  }
}

/** The routing headers 2026-07-28 asks for, read off each request's body: Mcp-Method, and Mcp-Name where one applies. */
function mcpNameOf(method: string, params: Record<string, unknown>): unknown {
  if (method === 'tools/call' || method === 'prompts/get') return params.name;
  if (method === 'resources/read') return params.uri;
  if (method.startsWith('tasks/')) return params.taskId;
  return undefined;
}

function withRoutingHeaders(base: typeof fetch): typeof fetch {
  return (input, init) => {
    if (init?.method !== 'POST' || typeof init.body !== 'string') return base(input, init);
    let message: { method?: unknown; params?: unknown };
    try {
      message = JSON.parse(init.body) as typeof message;
    } catch {
      return base(input, init);
    }
    if (typeof message.method !== 'string') return base(input, init);
    const headers = new Headers(init.headers);
    headers.set('Mcp-Method', headerValue(message.method));
    const name = mcpNameOf(message.method, isObject(message.params) ? message.params : {});
    if (typeof name === 'string') headers.set('Mcp-Name', headerValue(name));
    return base(input, { ...init, headers });
  };
}

/** How long after a stream's last byte its last events may still be on their way to us. */
const ANSWER_GRACE_MS = 500;

interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * A 2026-07-28 connection: no initialize and no session. Every request carries the `_meta` envelope
 * (protocol version, client info, capabilities) and the routing headers, and is matched to its answer by id;
 * answers come as JSON or as an event stream, whose notifications (progress, logs, task pushes on a listen
 * stream) go to the listeners. The SDK 1.32 transport carries the bytes (JSON and SSE parsing, the custom
 * fetch with Taskscope's deadlines, tap and relay), never its Client, whose connect() would initialize.
 */
export class Session2026 extends SessionBase implements ReceiverSession {
  readonly era = '2026-07-28' as const;
  readonly sessionId = undefined;
  readonly resumed = false;
  private readonly pending = new Map<string, Pending>();
  private server: ServerDescription = { name: '(unnamed receiver)', version: '?', capabilities: {} };
  private seq = 0;
  private closed = false;

  private constructor(
    private readonly transport: TappedTransport,
    private readonly inFlight: InFlightRequests,
    readonly url: string,
    readonly tap: TrafficTap,
  ) {
    super();
    transport.onmessage = (message) => this.receive(message);
  }

  /** Opens the connection with server/discover; fails (and says why) when the receiver does not speak 2026-07-28. */
  static async connect(options: ConnectOptions): Promise<Session2026> {
    // Routing headers outside the guarded fetch, so the tap's HTTP facts (curl, HAR) show them as sent.
    const { tap, hooks, inFlight, transport } = openTransport(options, { wrapFetch: withRoutingHeaders });
    transport.setProtocolVersion(PROTOCOL_2026);
    const session = new Session2026(transport, inFlight, options.url, tap);
    hooks.outcome = (ok, error) => session.onOutcome?.(ok, error);
    hooks.answerEnded = (ids) => session.answerEnded(ids);
    await session.transport.start();
    try {
      session.server = describeDiscovery(await session.discover());
    } catch (error) {
      await session.close();
      throw error;
    }
    return session;
  }

  /**
   * server/discover, asked once more when the receiver refuses the version offered yet lists 2026-07-28 among
   * those it takes (-32022 with `data.supported`): a corrective retry, as the SDK's own negotiation makes, and
   * only one, so a receiver that keeps refusing ends the connect with its own words.
   */
  private async discover(): Promise<unknown> {
    try {
      return await this.request('server/discover');
    } catch (error) {
      const status = error instanceof RpcError ? error.httpStatus : undefined;
      if (status === 401 || status === 403 || !listedVersions(error)?.includes(PROTOCOL_2026)) throw error;
      return this.request('server/discover');
    }
  }

  describeServer(): ServerDescription {
    return this.server;
  }

  request(
    method: string,
    params: Record<string, unknown> = {},
    options: RequestOptions = {},
  ): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('The connection to the receiver is closed.'));
    const id = `ts-${++this.seq}`;
    const meta = isObject(params._meta) ? params._meta : {};
    const message = {
      jsonrpc: '2.0' as const,
      id,
      method,
      params: {
        ...params,
        _meta: {
          ...meta,
          [META_2026.protocolVersion]: PROTOCOL_2026,
          [META_2026.clientInfo]: CLIENT_INFO,
          [META_2026.clientCapabilities]: options.withoutTasks
            ? {
                elicitation: CLIENT_CAPABILITIES_2026.elicitation,
                sampling: CLIENT_CAPABILITIES_2026.sampling,
              }
            : CLIENT_CAPABILITIES_2026,
        },
      },
    };
    const deadline = requestDeadlineMs(method);
    const timeoutMs = options.timeoutMs ?? (deadline === undefined ? undefined : deadline + 1000);
    const stream = method === 'subscriptions/listen';
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        if (stream) this.onNotificationStream?.(false);
      };
      const fail = (error: unknown) => {
        if (!this.pending.has(id)) return;
        settle();
        // Ends the fetch too: an answer nobody waits for must not hold one of the page's connections.
        this.inFlight.get(id)?.abort(new DOMException('cancelled', 'AbortError'));
        reject(error);
      };
      const onAbort = () => fail(options.signal?.reason ?? new DOMException('aborted', 'AbortError'));
      this.pending.set(id, {
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      if (stream) this.onNotificationStream?.(true);
      if (timeoutMs !== undefined)
        timer = setTimeout(() => fail(new DeadlineExceeded(method, timeoutMs)), timeoutMs);
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.transport.send(message as JSONRPCMessage).catch((error: unknown) => fail(asRpcError(error)));
    });
  }

  respond(): Promise<void> {
    // 2026-07-28 receivers send no requests of their own: input is answered with tasks/update.
    return Promise.reject(new Error('2026-07-28 receivers are answered through tasks/update'));
  }

  /** 2026-07-28 has no session to end: closing only stops what is open. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const controller of this.inFlight.values())
      controller.abort(new DOMException('closed', 'AbortError'));
    for (const pending of this.pending.values()) pending.reject(new Error('The connection was closed.'));
    this.pending.clear();
    await this.transport.close().catch(() => undefined);
  }

  abandon(): Promise<void> {
    return this.close();
  }

  /**
   * A streamed answer ended (or broke off) and these requests are still unanswered: they never will be. The
   * last events are parsed after the bytes end, so this waits a moment before giving up on them.
   */
  answerEnded(ids: ReadonlyArray<string | number>): void {
    setTimeout(() => {
      for (const id of ids)
        this.pending
          .get(String(id))
          ?.reject(new Error('The receiver ended its answer stream without answering the request.'));
    }, ANSWER_GRACE_MS);
  }

  private receive(message: JSONRPCMessage): void {
    const m = message as {
      id?: string | number;
      method?: string;
      params?: unknown;
      result?: unknown;
      error?: unknown;
    };
    if (m.method !== undefined) {
      // 2026-07-28 receivers send notifications only (progress, logs, task pushes): no requests to answer.
      if (m.id !== undefined) return;
      this.dispatch({
        method: m.method,
        params: isObject(m.params) ? (m.params as Record<string, unknown>) : undefined,
      });
      return;
    }
    const pending = m.id === undefined ? undefined : this.pending.get(String(m.id));
    if (!pending) return;
    if (isObject(m.error)) pending.reject(rpcErrorOf(m.error));
    else pending.resolve(m.result);
  }
}

function rpcErrorOf(error: Record<string, unknown>, httpStatus?: number): RpcError {
  const code = typeof error.code === 'number' ? error.code : -32603;
  const message = typeof error.message === 'string' ? cutText(error.message, 2000) : `error ${code}`;
  return new RpcError(code, message, limitJson(error.data, { maxDepth: 8, maxNodes: 500 }).value, httpStatus);
}

/** A 2026-07-28 receiver answers its refusals with HTTP 400/404 and a JSON-RPC error body: read it as one. */
export function asRpcError(error: unknown): unknown {
  if (!(error instanceof HttpStatusError)) return error;
  try {
    const body = JSON.parse(error.body) as { error?: unknown };
    if (isObject(body) && isObject(body.error)) return rpcErrorOf(body.error, error.status);
  } catch {
    // Not JSON: the status says what there is to say.
  }
  return error;
}

/** The versions a -32022 lists in `data.supported` (an empty list when it names none), else undefined. */
export function listedVersions(error: unknown): string[] | undefined {
  if ((error as { code?: unknown } | null)?.code !== UNSUPPORTED_VERSION_CODE) return undefined;
  const supported = (error as { data?: { supported?: unknown } }).data?.supported;
  return Array.isArray(supported)
    ? supported.filter((v): v is string => typeof v === 'string').slice(0, 32)
    : [];
}

/** What server/discover says of the receiver, cut to sizes a card can show; refused unless it lists 2026-07-28. */
function describeDiscovery(raw: unknown): ServerDescription {
  const result = isObject(raw) ? raw : {};
  const versions = Array.isArray(result.supportedVersions) ? result.supportedVersions : [];
  if (!versions.includes(PROTOCOL_2026))
    throw new RpcError(
      UNSUPPORTED_VERSION_CODE,
      `server/discover answered, but supportedVersions (${cutText(JSON.stringify(versions), 200)}) does not list ${PROTOCOL_2026}`,
    );
  const meta = isObject(result._meta) ? result._meta : {};
  const info = isObject(meta[META_2026.serverInfo])
    ? meta[META_2026.serverInfo]
    : isObject(result.serverInfo)
      ? result.serverInfo
      : {};
  return describeServer(info as Record<string, unknown>, {
    protocolVersion: PROTOCOL_2026,
    instructions: result.instructions,
    capabilities: result.capabilities,
  });
}
