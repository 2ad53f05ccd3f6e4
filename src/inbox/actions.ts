import type { ServerRequest, ServerRequestHandler } from '../mcp';
import { getRuntime } from '../connection/runtime';
import { useInbox, type InboxItem } from './store';

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

interface Waiter {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}
/** The promises the SDK waits on, one per pending item: not state to render, so outside the store. */
const waiters = new Map<string, Waiter>();

/** The JSON-RPC error a person's refusal of a sampling request becomes (as in the MCP specification). */
class UserRejected extends Error {
  readonly code = -1;
}

function noteOnTask(item: InboxItem, phase: 'asked' | 'answered' | 'cancelled', detail?: string): void {
  const runtime = getRuntime();
  if (
    item.relatedTaskId &&
    runtime?.connectionId === item.connectionId &&
    runtime.tracker.isTracked(item.relatedTaskId)
  ) {
    runtime.tracker.noteInput(item.relatedTaskId, { method: item.method, phase, detail });
  }
}

/** Our answers carry the task they belong to, as the receiver's request did. */
function withRelatedTask(item: InboxItem, result: Record<string, unknown>): Record<string, unknown> {
  return item.relatedTaskId
    ? { ...result, _meta: { [RELATED_TASK]: { taskId: item.relatedTaskId } } }
    : result;
}

/**
 * Answers the receiver's own requests by putting them in the inbox for a person; the SDK client sends the
 * answer back as the JSON-RPC response when the person has given it (or refuses, or the receiver gives up).
 */
export function createInboxHandler(connectionId: number): ServerRequestHandler {
  return (request: ServerRequest, signal: AbortSignal) =>
    new Promise((resolve, reject) => {
      const item: InboxItem = {
        key: `${connectionId}:${String(request.id)}:${Date.now()}`,
        connectionId,
        requestId: request.id,
        method: request.method,
        params: request.params,
        relatedTaskId: request.relatedTaskId,
        receivedAt: Date.now(),
        state: 'pending',
      };
      waiters.set(item.key, { resolve, reject });
      useInbox.getState().add(item);
      noteOnTask(item, 'asked');
      signal.addEventListener('abort', () => {
        if (!waiters.delete(item.key)) return;
        useInbox.getState().settle(item.key, 'cancelled', 'withdrawn by the receiver');
        noteOnTask(item, 'cancelled', 'withdrawn by the receiver');
        reject(new Error('cancelled'));
      });
    });
}

function settle(key: string, outcome: string, result: Record<string, unknown> | UserRejected): void {
  const waiter = waiters.get(key);
  const item = useInbox.getState().items.find((i) => i.key === key);
  if (!waiter || !item) return;
  waiters.delete(key);
  useInbox.getState().settle(key, 'answered', outcome);
  noteOnTask(item, 'answered', outcome);
  if (result instanceof UserRejected) waiter.reject(result);
  else waiter.resolve(withRelatedTask(item, result));
}

export function answerElicitation(
  key: string,
  action: 'accept' | 'decline' | 'cancel',
  content?: Record<string, unknown>,
): void {
  settle(key, action, action === 'accept' ? { action, content: content ?? {} } : { action });
}

export function answerSampling(key: string, reply: { text: string; model: string } | 'decline'): void {
  if (reply === 'decline') {
    settle(key, 'declined', new UserRejected('The user declined the sampling request'));
    return;
  }
  settle(key, `replied as ${reply.model}`, {
    role: 'assistant',
    content: { type: 'text', text: reply.text },
    model: reply.model,
    stopReason: 'endTurn',
  });
}

/** On disconnect: whatever was still waiting can no longer be answered. */
export function dropConnection(connectionId: number): void {
  for (const item of useInbox.getState().items) {
    if (item.connectionId !== connectionId || item.state !== 'pending') continue;
    const waiter = waiters.get(item.key);
    waiters.delete(item.key);
    useInbox.getState().settle(item.key, 'cancelled', 'connection closed');
    waiter?.reject(new Error('connection closed'));
  }
}
