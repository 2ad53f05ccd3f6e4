import { limitJson, withRelatedTask, type ServerRequestHandler } from '../mcp';
import type { Command, InboxEvent, InboxRequest } from './messages';

/** Receiver requests waiting for a person at once; more are refused at once, so a flood cannot fill the page. */
const MAX_WAITING_FOR_PERSON = 50;

/**
 * Refusals answered per turn of the event loop. Each answer is a POST, and starting a request costs a Worker
 * milliseconds (bench:ui's profile): answered all at once, a flood of 1,000 requests held the Worker for
 * seconds, and the batch telling the page of the 50 that wait (and of the refusals) waited behind them.
 */
const REFUSALS_PER_TURN = 10;

/** A refusal the SDK sends back as a JSON-RPC error with this code. */
class CodedError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

type Phase = 'asked' | 'answered' | 'cancelled';

interface Waiter {
  request: InboxRequest;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/**
 * What one connection's receiver asks a person (elicitation, sampling): each request is held open until the
 * page answers it, the receiver withdraws it or the connection closes, and every step is told to the page
 * (inbox events) and to the task it belongs to (`note`).
 */
export class PersonRequests {
  private readonly waiters = new Map<string, Waiter>();
  private seq = 0;
  private refusedCount = 0;
  /** Refusals decided but not yet answered, answered a few per turn (`REFUSALS_PER_TURN`). */
  private refusals: Array<() => void> = [];
  private refusalTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly connectionId: number,
    private readonly events: {
      inbox: (event: InboxEvent) => void;
      refused: (note: string) => void;
      note: (request: InboxRequest, phase: Phase, detail?: string) => void;
    },
  ) {}

  /** The handler the session calls for each receiver request. */
  readonly handler: ServerRequestHandler = (request, signal) =>
    new Promise((resolve, reject) => {
      if (this.waiters.size >= MAX_WAITING_FOR_PERSON) {
        this.refusedCount++;
        this.events.refused(
          `${this.refusedCount} ${request.method} requests refused: ${MAX_WAITING_FOR_PERSON} already wait for a person`,
        );
        const refusal = new CodedError(
          `Too many requests waiting for a person (${MAX_WAITING_FOR_PERSON})`,
          -32603,
        );
        this.refuseSoon(() => reject(refusal));
        return;
      }
      const item: InboxRequest = {
        key: `${this.connectionId}:${String(request.id)}:${++this.seq}`,
        connectionId: this.connectionId,
        requestId: request.id,
        method: request.method,
        params: request.params,
        relatedTaskId: request.relatedTaskId,
        receivedAt: Date.now(),
      };
      this.waiters.set(item.key, { request: item, resolve, reject });
      this.events.inbox({ kind: 'asked', request: item });
      this.events.note(item, 'asked');
      signal.addEventListener('abort', () => {
        if (!this.waiters.delete(item.key)) return;
        const outcome = 'withdrawn by the receiver';
        this.events.inbox({ kind: 'settled', key: item.key, state: 'cancelled', outcome });
        this.events.note(item, 'cancelled', outcome);
        reject(new Error('cancelled'));
      });
    });

  /**
   * A question asked before the page reloaded, in the session just taken up again: the receiver still waits
   * for its answer, which goes back as a plain JSON-RPC response through `send` (any POST reaches it).
   */
  adopt(
    request: InboxRequest,
    send: (reply: { result: Record<string, unknown> } | { error: { code: number; message: string } }) => void,
  ): void {
    const item: InboxRequest = { ...request, connectionId: this.connectionId };
    this.waiters.set(item.key, {
      request: item,
      resolve: (result) => send({ result }),
      reject: (error) =>
        send({ error: { code: error instanceof CodedError ? error.code : -32603, message: error.message } }),
    });
    this.events.inbox({ kind: 'asked', request: item });
  }

  /** The person's answer; false when nothing waits under that key any more. */
  answer(key: string, outcome: string, reply: Extract<Command, { type: 'answer' }>['reply']): boolean {
    const waiter = this.waiters.get(key);
    if (!waiter) return false;
    this.waiters.delete(key);
    const kept =
      'result' in reply
        ? { result: limitJson(reply.result, { maxDepth: 8, maxNodes: 500 }).value as Record<string, unknown> }
        : reply;
    this.events.inbox({ kind: 'settled', key, state: 'answered', outcome, reply: kept, at: Date.now() });
    this.events.note(waiter.request, 'answered', outcome);
    if ('result' in reply) waiter.resolve(withRelatedTask(reply.result, waiter.request.relatedTaskId));
    else waiter.reject(new CodedError(reply.error.message, reply.error.code));
    return true;
  }

  /**
   * Queues a refusal's answer. One timer at a time, chained: whatever else reaches the Worker meanwhile (the
   * page taking a batch, a poll's answer) gets its turn between two handfuls of refusals.
   */
  private refuseSoon(answer: () => void): void {
    this.refusals.push(answer);
    this.refusalTimer ??= setTimeout(this.answerRefusals, 0);
  }

  private readonly answerRefusals = () => {
    const now = this.refusals.splice(0, REFUSALS_PER_TURN);
    this.refusalTimer = this.refusals.length > 0 ? setTimeout(this.answerRefusals, 0) : undefined;
    for (const answer of now) answer();
  };

  /** The connection closed: whatever still waits can no longer be answered. */
  dropAll(): void {
    clearTimeout(this.refusalTimer);
    this.refusalTimer = undefined;
    for (const answer of this.refusals.splice(0)) answer();
    for (const [key, waiter] of this.waiters) {
      this.events.inbox({ kind: 'settled', key, state: 'cancelled', outcome: 'connection closed' });
      waiter.reject(new Error('connection closed'));
    }
    this.waiters.clear();
  }
}
