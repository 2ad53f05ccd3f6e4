import { describe, expect, it } from 'vitest';
import { TasksApi2026 } from './tasks-api-2026';
import type { SessionLike } from './session-holder';
import type { Notification, NotificationListener, ServerRequest } from './session-types';
import { RpcError } from './session-2026';

/** A 2026-07-28 receiver scripted in memory: what tasks/get answers, and every request it got. */
class ScriptedSession implements SessionLike {
  readonly sent: Array<{ method: string; params: Record<string, unknown> }> = [];
  readonly asked: ServerRequest[] = [];
  answerPerson: (request: ServerRequest) => Promise<Record<string, unknown>> = () =>
    new Promise(() => undefined);
  task: Record<string, unknown> = {};
  failUpdate = false;
  private readonly listeners = new Set<NotificationListener>();

  describeServer() {
    return {
      name: 'scripted',
      version: '1',
      protocolVersion: '2026-07-28',
      capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    };
  }
  async request(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    this.sent.push({ method, params });
    if (method === 'tasks/get') return { resultType: 'complete', ...this.task };
    if (method === 'tasks/update' && this.failUpdate) throw new RpcError(-32602, 'invalid answer');
    if (method === 'subscriptions/listen') return new Promise(() => undefined);
    return { resultType: 'complete' };
  }
  onNotification(listener: NotificationListener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  push(notification: Notification) {
    for (const listener of this.listeners) listener(notification);
  }
  askPerson(request: ServerRequest, signal: AbortSignal) {
    this.asked.push(request);
    signal.addEventListener('abort', () => undefined);
    return this.answerPerson(request);
  }
}

const base = {
  taskId: 't1',
  createdAt: '2026-12-01T10:00:00Z',
  lastUpdatedAt: '2026-12-01T10:00:00Z',
  ttlMs: 60_000,
  pollIntervalMs: 500,
};
const asking = {
  ...base,
  status: 'input_required',
  inputRequests: { k1: { method: 'elicitation/create', params: { message: 'Colour?' } } },
};
const settle = () => new Promise((r) => setTimeout(r, 0));
const updates = (s: ScriptedSession) => s.sent.filter((m) => m.method === 'tasks/update');

describe('TasksApi2026 input rounds', () => {
  it('asks each key once however often it is polled; the answer goes back bare; still asked three answers later, it is said', async () => {
    const session = new ScriptedSession();
    session.answerPerson = async () => ({ action: 'accept', content: { answer: 'teal' }, _meta: { x: 1 } });
    session.task = asking;
    const api = new TasksApi2026(session);
    await api.getTask('t1');
    await settle();
    await api.getTask('t1');
    expect(session.asked).toHaveLength(1);
    expect(session.asked[0]).toMatchObject({ method: 'elicitation/create', relatedTaskId: 't1' });
    expect(updates(session)).toEqual([
      {
        method: 'tasks/update',
        params: { taskId: 't1', inputResponses: { k1: { action: 'accept', content: { answer: 'teal' } } } },
      },
    ]);
    // The second tasks/get above already came after the answer: the third after it says so, once.
    const later = [await api.getTask('t1'), await api.getTask('t1'), await api.getTask('t1')];
    expect(later.map((r) => r.warnings.some((w) => /may have been lost/.test(w.message)))).toEqual([
      false,
      true,
      false,
    ]);
    expect(session.asked).toHaveLength(1);
    api.dispose();
  });

  it('a refusal that is no answer (the inbox full) and an answer the receiver did not take both ask again', async () => {
    const session = new ScriptedSession();
    session.answerPerson = () => Promise.reject(Object.assign(new Error('Too many'), { code: -32603 }));
    session.task = asking;
    const api = new TasksApi2026(session);
    await api.getTask('t1');
    await settle();
    expect(updates(session)).toHaveLength(0);
    session.failUpdate = true;
    session.answerPerson = async () => ({ action: 'accept', content: { answer: 'x' } });
    await api.getTask('t1');
    await settle();
    await settle();
    expect(session.asked).toHaveLength(2);
    session.failUpdate = false;
    await api.getTask('t1');
    await settle();
    expect(session.asked).toHaveLength(3);
    expect(updates(session)).toHaveLength(2);
    api.dispose();
  });

  it('a person rejecting a sampling request sends nothing and is not asked again', async () => {
    const session = new ScriptedSession();
    session.answerPerson = () => Promise.reject(Object.assign(new Error('rejected'), { code: -1 }));
    session.task = {
      ...base,
      status: 'input_required',
      inputRequests: { s1: { method: 'sampling/createMessage', params: { messages: [] } } },
    };
    const api = new TasksApi2026(session);
    await api.getTask('t1');
    await settle();
    await api.getTask('t1');
    expect(session.asked).toHaveLength(1);
    expect(updates(session)).toHaveLength(0);
    api.dispose();
  });
});

describe('TasksApi2026 results, pushes and cancel', () => {
  it('the completing tasks/get brings the result (inner resultType or not), read once with no further request', async () => {
    const session = new ScriptedSession();
    session.task = {
      ...base,
      status: 'completed',
      result: { resultType: 'complete', content: [{ type: 'text', text: 'done' }] },
    };
    const api = new TasksApi2026(session);
    await api.getTask('t1');
    const result = await api.getTaskResult('t1');
    expect(result.value).toMatchObject({ shape: 'inline', isError: false });
    expect(JSON.stringify(result.value.result)).toContain('done');
    expect(JSON.stringify(result.value.result)).not.toContain('resultType');
    expect(session.sent.filter((m) => m.method === 'tasks/get')).toHaveLength(1);
    api.dispose();
  });

  it.each([
    [{ contents: [{ uri: 'file:///a', text: 'a' }] }, /^not a CallToolResult: no content array/],
    [[{ uri: 'file:///a', text: 'a' }], /^expected a result object, got \[/],
  ])('an inline result that is no CallToolResult (%j) is a warning on the result', async (inner, message) => {
    const session = new ScriptedSession();
    session.task = { ...base, status: 'completed', result: inner };
    const api = new TasksApi2026(session);
    await api.getTask('t1');
    const result = await api.getTaskResult('t1');
    expect(result.value.shape).toBe('inline');
    expect(result.warnings.map((w) => w.message)).toEqual([expect.stringMatching(message)]);
    api.dispose();
  });

  it('a push for a task not followed here neither asks the person nor keeps anything', async () => {
    const session = new ScriptedSession();
    const api = new TasksApi2026(session);
    const seen: unknown[] = [];
    api.onTaskStatus((update) => seen.push(update.value?.taskId));
    session.push({ method: 'notifications/tasks', params: { ...asking, taskId: 'stranger' } });
    await settle();
    expect(seen).toEqual(['stranger']);
    expect(session.asked).toHaveLength(0);
    api.dispose();
  });

  it('cancel is the acknowledgement alone: no extra request, no status and no warning', async () => {
    const session = new ScriptedSession();
    const api = new TasksApi2026(session);
    const answer = await api.cancelTask('t1');
    expect(answer.value).toBeNull();
    expect(answer.warnings).toEqual([]);
    expect(session.sent.map((m) => m.method)).toEqual(['tasks/cancel']);
    api.dispose();
  });
});
