/**
 * One page connection to a stdio server: its own process (a stdio server has one client), and the routing of
 * messages between the page's HTTP requests and the process's stdin/stdout. Nothing here reads a task: a
 * response goes to the request it answers, a progress or subscription notification to the request it names,
 * anything else to the GET stream (or, with none open, the newest request still waiting, or a short queue).
 */
import { randomBytes } from 'node:crypto';
import { ConsoleRing, type ConsoleLine } from './console-ring.js';
import {
  StdioChild,
  type ChildOptions,
  type ChildState,
  type StdioCommand,
  type WireMessage,
} from './child.js';
import type { Outlet } from './outlet.js';

export interface StdioReceiver {
  /** The path segment: /stdio/<name>/mcp. */
  name: string;
  command: StdioCommand;
}

/** Messages for the page that arrive while it has no stream open: held for the next one, this many at most. */
const QUEUE_LIMIT = 200;
const SUBSCRIPTION_ID_KEY = 'io.modelcontextprotocol/subscriptionId';

interface Pending {
  id: string | number;
  outlet: Outlet;
  progressToken?: string | number;
}

export interface ConsoleSnapshot {
  name: string;
  command: string;
  state: ChildState | { phase: 'not-started' };
  /** "exited with code 1: …" once it has ended. */
  summary?: string;
  nonMcpLines: number;
  lines: ConsoleLine[];
  /** Lines the ring let go since the start. */
  dropped: number;
  lastSeq: number;
}

const keyOf = (id: unknown) => `${typeof id}:${String(id)}`;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function commandLine(command: StdioCommand): string {
  return [command.command, ...command.args]
    .map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

export class BridgeConnection {
  readonly console = new ConsoleRing();
  child: StdioChild | undefined;
  /** The 2025-11-25 session this process serves, from its initialize on; a stdio server has one at a time. */
  sessionId: string | undefined;
  /**
   * When a page last used the process: a request came, or an answer or stream ended. Idle time counts from the
   * end of use, not its start — an initialize slower than the idle time (npx fetching a package) is not idle.
   */
  lastUsed = Date.now();
  private readonly pending = new Map<string, Pending>();
  private getStream: Outlet | undefined;
  private queue: WireMessage[] = [];

  constructor(
    readonly id: string,
    readonly receiver: StdioReceiver,
    private readonly childOptions: ChildOptions = {},
  ) {}

  get started(): boolean {
    return this.child !== undefined;
  }

  get alive(): boolean {
    return this.child?.alive ?? false;
  }

  get hasOpenStream(): boolean {
    return this.pending.size > 0 || (this.getStream?.open ?? false);
  }

  start(): StdioChild {
    const child = new StdioChild(
      this.receiver.command,
      this.console,
      (message) => this.fromServer(message),
      () => this.serverExited(),
      this.childOptions,
    );
    this.child = child;
    child.start();
    return child;
  }

  /** A new 2025-11-25 session on this process: the one before it (if any) is gone. */
  newSession(): string {
    this.sessionId = randomBytes(16).toString('hex');
    return this.sessionId;
  }

  /** False when a request with this id is still waiting for its answer. */
  canTake(id: string | number): boolean {
    return !this.pending.has(keyOf(id));
  }

  /** A request from the page: its answer, and whatever names it, go to `outlet`. */
  request(message: WireMessage, outlet: Outlet): void {
    const id = message.id as string | number;
    const key = keyOf(id);
    const meta = isObject(message.params) && isObject(message.params._meta) ? message.params._meta : {};
    const token = meta.progressToken;
    this.pending.set(key, {
      id,
      outlet,
      progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
    });
    outlet.onClose(() => {
      if (this.pending.get(key)?.outlet === outlet) this.pending.delete(key);
      this.lastUsed = Date.now();
    });
    if (outlet.mode === 'sse') this.flushQueue(outlet);
    if (!this.child?.send(message)) this.answerUnsent(id, outlet);
  }

  /** A notification or a response (to a request of the server's) from the page. */
  forward(message: WireMessage): boolean {
    return this.child?.send(message) ?? false;
  }

  openGetStream(outlet: Outlet): void {
    // One at a time: a page that opens another has given up on the first.
    this.getStream?.end();
    this.getStream = outlet;
    outlet.onClose(() => {
      if (this.getStream === outlet) this.getStream = undefined;
      this.lastUsed = Date.now();
    });
    this.flushQueue(outlet);
  }

  endSession(): void {
    this.sessionId = undefined;
  }

  stop(reason: string): Promise<void> {
    return this.child?.stop(reason) ?? Promise.resolve();
  }

  snapshot(after: number): ConsoleSnapshot {
    const child = this.child;
    return {
      name: this.receiver.name,
      command: commandLine(this.receiver.command),
      state: child ? child.state : { phase: 'not-started' },
      summary: child && !child.alive ? child.describeEnd() : undefined,
      nonMcpLines: child?.nonMcpLines ?? 0,
      lines: this.console.after(after),
      dropped: this.console.dropped,
      lastSeq: this.console.lastSeq,
    };
  }

  private fromServer(message: WireMessage): void {
    const isResponse =
      'id' in message && ('result' in message || 'error' in message) && !('method' in message);
    if (isResponse) {
      const pending = this.pending.get(keyOf(message.id));
      if (pending) {
        this.pending.delete(keyOf(message.id));
        this.lastUsed = Date.now();
        pending.outlet.send(message, true);
      }
      // An answer nobody waits for any more (the page gave up on the request): nothing to do with it.
      return;
    }
    const outlet = this.outletFor(message);
    if (outlet?.send(message)) return;
    this.queue.push(message);
    if (this.queue.length > QUEUE_LIMIT) {
      this.queue.shift();
      this.console.push(
        'bridge',
        `More than ${QUEUE_LIMIT} messages for the page with no stream open: the oldest was dropped.`,
      );
    }
  }

  private outletFor(message: WireMessage): Outlet | undefined {
    const params = isObject(message.params) ? message.params : {};
    const meta = isObject(params._meta) ? params._meta : {};
    const open = [...this.pending.values()].filter((p) => p.outlet.mode === 'sse' && p.outlet.open);
    if (message.method === 'notifications/progress' && params.progressToken !== undefined) {
      const asked = open.find((p) => p.progressToken === params.progressToken);
      if (asked) return asked.outlet;
    }
    const subscription = meta[SUBSCRIPTION_ID_KEY];
    if (subscription !== undefined) {
      const listen = open.find((p) => p.id === subscription);
      if (listen) return listen.outlet;
    }
    if (this.getStream?.open) return this.getStream;
    return open.at(-1)?.outlet;
  }

  private flushQueue(outlet: Outlet): void {
    while (this.queue.length > 0 && outlet.open) outlet.send(this.queue.shift());
  }

  private answerUnsent(id: string | number, outlet: Outlet): void {
    this.pending.delete(keyOf(id));
    outlet.send(this.failure(id), true);
  }

  /** The answer a request gets when the process is gone: its exit, in the error's message. */
  private failure(id: string | number): WireMessage {
    const how = this.child ? this.child.describeEnd() : 'is not running';
    return {
      jsonrpc: '2.0',
      id,
      error: { code: -32603, message: `Taskscope's stdio bridge: the server ${how}` },
    };
  }

  private serverExited(): void {
    for (const pending of this.pending.values()) pending.outlet.send(this.failure(pending.id), true);
    this.pending.clear();
    this.getStream?.end();
    this.getStream = undefined;
    this.queue = [];
    this.sessionId = undefined;
  }
}
