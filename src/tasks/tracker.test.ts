import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../app/queryClient';
import { normaliseTask } from '../mcp';
import { TaskTracker, type TrackerSettings } from './tracker';
import { ScriptedReceiver, rawTask } from '../../test/helpers/scripted-receiver';
import { rpcError } from '../../test/fixtures/shapes';
import { HttpStatusError } from '../mcp/errors';

let receiver: ScriptedReceiver;
let tracker: TaskTracker;
let settings: TrackerSettings;

function start(initial = rawTask()) {
  tracker = new TaskTracker({
    api: receiver,
    queryClient: createQueryClient(),
    connectionId: 1,
    settings: () => settings,
  });
  tracker.track('t1', { origin: 'created', tool: 'slow_job', initial: normaliseTask({ task: initial }) });
}
const task = () => tracker.store.getState().tasks.get('t1')!;
const polls = () => receiver.count('tasks/get', 't1');

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse('2026-11-30T10:00:00.000Z') });
  receiver = new ScriptedReceiver();
  settings = { paused: false, minPollIntervalMs: 0 };
});
afterEach(() => {
  tracker.dispose();
  // A disposed tracker leaves no timer behind: no poll, probe or retry fires after its connection is gone.
  expect(vi.getTimerCount()).toBe(0);
  vi.useRealTimers();
});

describe('TaskTracker polling', () => {
  it('polls at the pollInterval of the last answer, re-read every time', async () => {
    let interval = 1000;
    receiver.onGet = async () => rawTask({ pollInterval: interval });
    start();
    await vi.advanceTimersByTimeAsync(999);
    expect(polls()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(polls()).toBe(1);
    interval = 2500; // the second answer asks for 2.5 s
    await vi.advanceTimersByTimeAsync(1000);
    expect(polls()).toBe(2);
    await vi.advanceTimersByTimeAsync(2499);
    expect(polls()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(polls()).toBe(3);
    expect(task().nextPollInMs).toBe(2500);
  });

  it('never polls faster than asked, whatever the user minimum', async () => {
    receiver.onGet = async () => rawTask({ pollInterval: 3000 });
    settings.minPollIntervalMs = 500;
    start(rawTask({ pollInterval: 3000 }));
    await vi.advanceTimersByTimeAsync(9000);
    expect(polls()).toBe(3);
    const gaps = receiver.calls.slice(1).map((c, i) => c.at - receiver.calls[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(3000);
  });

  it('a user minimum slows polling down', async () => {
    receiver.onGet = async () => rawTask();
    settings.minPollIntervalMs = 5000;
    start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(polls()).toBe(2);
  });

  it('keeps one request in flight per task', async () => {
    receiver.onGet = () => new Promise(() => {}); // never answers
    start();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(polls()).toBe(1);
  });

  it('a push updates at once and does not bring the next poll forward', async () => {
    receiver.onGet = async () => rawTask();
    start();
    await vi.advanceTimersByTimeAsync(400);
    receiver.push('notifications/tasks/updated', rawTask({ statusMessage: 'pushed' }));
    expect(task().notificationCount).toBe(1);
    expect(tracker.snapshot('t1')?.statusMessage).toBe('pushed');
    await vi.advanceTimersByTimeAsync(599);
    expect(polls()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(polls()).toBe(1);
  });

  it('stops at a terminal status and fetches the result in the same tick, once', async () => {
    receiver.onGet = async () => rawTask({ status: 'completed' });
    let resultCallsWhenTerminalSeen = -1;
    receiver.onResult = async () => ({ content: [{ type: 'text', text: 'ok' }] });
    start();
    tracker.store.subscribe((s) => {
      if (s.tasks.get('t1')?.lifecycle === 'terminal' && resultCallsWhenTerminalSeen < 0) {
        // The store update and the tasks/result call happen in one synchronous pass; by the next microtask it is sent.
        queueMicrotask(() => (resultCallsWhenTerminalSeen = receiver.count('tasks/result')));
      }
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(task()).toMatchObject({ status: 'completed', lifecycle: 'terminal', nextPollInMs: null });
    expect(resultCallsWhenTerminalSeen).toBe(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(polls()).toBe(1);
    expect(receiver.count('tasks/result')).toBe(1);
    expect(task().result.state).toBe('fetched');
    expect(task().pollsAfterTerminal).toBe(0);
  });

  it('a push of completed also fetches the result once, and polling stops', async () => {
    receiver.onGet = async () => rawTask();
    receiver.onResult = async () => ({ taskId: 't1', status: 'completed', result: { content: [] } });
    start();
    receiver.push('notifications/tasks/status', rawTask({ status: 'completed' }));
    receiver.push('notifications/tasks', rawTask({ status: 'completed' }));
    await vi.advanceTimersByTimeAsync(5000);
    expect(polls()).toBe(0);
    expect(receiver.count('tasks/result')).toBe(1);
  });

  it('-32602 on a known task: purged, polling stops, the history stays', async () => {
    let n = 0;
    receiver.onGet = async () => {
      if (++n < 3) return rawTask({ statusMessage: `step ${n}` });
      throw rpcError(-32602, 'Task has expired');
    };
    start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(polls()).toBe(3);
    expect(task().lifecycle).toBe('purged');
    expect(task().entries.filter((e) => e.kind === 'observation')).toHaveLength(3);
    expect(tracker.snapshot('t1')?.statusMessage).toBe('step 2');
  });

  it('a pasted id the receiver never knew: unknown, no more polls', async () => {
    receiver.onGet = async () => {
      throw rpcError(-32602, 'Task not found');
    };
    tracker = new TaskTracker({ api: receiver, queryClient: createQueryClient(), connectionId: 1 });
    tracker.track('t1', { origin: 'manual' });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(polls()).toBe(1);
    expect(task().lifecycle).toBe('unknown');
  });

  it('backs off exponentially on rate limits and honours Retry-After', async () => {
    let n = 0;
    receiver.onGet = async () => {
      n++;
      if (n <= 3) throw rpcError(-32429, 'Too Many Requests');
      if (n === 4) throw new HttpStatusError(429, '', 20_000);
      return rawTask();
    };
    start();
    await vi.advanceTimersByTimeAsync(1000); // poll 1 → backoff 1 s
    await vi.advanceTimersByTimeAsync(1000); // poll 2 → backoff 2 s
    expect(polls()).toBe(2);
    await vi.advanceTimersByTimeAsync(2000); // poll 3 → backoff 4 s
    expect(polls()).toBe(3);
    expect(task().backoffMs).toBe(4000);
    await vi.advanceTimersByTimeAsync(4000); // poll 4 → HTTP 429, Retry-After 20 s
    expect(polls()).toBe(4);
    await vi.advanceTimersByTimeAsync(19_999);
    expect(polls()).toBe(4);
    await vi.advanceTimersByTimeAsync(1);
    expect(polls()).toBe(5);
    expect(task()).toMatchObject({ rateLimitedCount: 4, backoffMs: 0, lastError: undefined });
  });

  it('caps transport-error backoff at 30 s', async () => {
    receiver.onGet = async () => {
      throw new TypeError('Failed to fetch');
    };
    start();
    await vi.advanceTimersByTimeAsync(200_000);
    expect(task().backoffMs).toBe(30_000);
    expect(task().lastError?.kind).toBe('cors-or-network');
  });

  it('pause stops every poller; resume starts them again from now', async () => {
    receiver.onGet = async () => rawTask();
    start();
    settings.paused = true;
    tracker.settingsChanged();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(polls()).toBe(0);
    expect(task().nextPollInMs).toBeNull();
    settings.paused = false;
    tracker.settingsChanged();
    await vi.advanceTimersByTimeAsync(1000);
    expect(polls()).toBe(1);
  });

  it('ignores an unknown status and an illegal move out of a terminal one, with warnings', async () => {
    let status = 'bogus';
    receiver.onGet = async () => rawTask({ status });
    receiver.onResult = async () => ({ content: [] });
    start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(task().status).toBe('working');
    expect(task().warningCount).toBe(1);
    status = 'completed';
    await vi.advanceTimersByTimeAsync(1000);
    receiver.push('notifications/tasks/status', rawTask({ status: 'working' }));
    expect(task().status).toBe('completed');
    const last = task().entries.at(-1);
    expect(last?.kind === 'observation' && last.warnings[0]?.code).toBe('illegal-transition');
  });
});

describe('TaskTracker results', () => {
  it('-32602 from tasks/result is recorded once, never looped on', async () => {
    receiver.onGet = async () => rawTask({ status: 'completed' });
    receiver.onResult = async () => {
      throw rpcError(-32602, 'Task has expired');
    };
    start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(receiver.count('tasks/result')).toBe(1);
    expect(task().result).toMatchObject({ state: 'unavailable', error: { kind: 'purged' } });
  });

  it('retries tasks/result on transport errors with backoff, then keeps the result', async () => {
    let n = 0;
    receiver.onGet = async () => rawTask({ status: 'failed' });
    receiver.onResult = async () => {
      if (++n < 3) throw new TypeError('Failed to fetch');
      return { taskId: 't1', status: 'failed', result: null };
    };
    start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(task().result.state).toBe('retrying');
    await vi.advanceTimersByTimeAsync(1000 + 2000);
    expect(receiver.count('tasks/result')).toBe(3);
    expect(task().result.state).toBe('fetched');
  });
});

describe('TaskTracker TTL and purge', () => {
  it('after a terminal task’s ttl runs out, asks once whether it was purged', async () => {
    let purged = false;
    receiver.onGet = async () => {
      if (purged) throw rpcError(-32602, 'Task has expired');
      return rawTask({ status: 'completed', ttl: 5000 });
    };
    receiver.onResult = async () => ({ content: [] });
    start(rawTask({ ttl: 5000 }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(task().lifecycle).toBe('terminal');
    purged = true;
    await vi.advanceTimersByTimeAsync(5000);
    expect(task().lifecycle).toBe('purged');
    expect(task().pollsAfterTerminal).toBe(0);
    expect(receiver.count('tasks/get')).toBe(2);
  });

  it('estimates the receiver’s clock offset from its timestamps', async () => {
    const ahead = 7000;
    receiver.onGet = async () => rawTask({ lastUpdatedAt: new Date(Date.now() + ahead).toISOString() });
    start(
      rawTask({
        createdAt: new Date(Date.now() + ahead).toISOString(),
        lastUpdatedAt: new Date(Date.now() + ahead).toISOString(),
      }),
    );
    await vi.advanceTimersByTimeAsync(2000);
    expect(tracker.store.getState().clockOffsetMs).toBe(ahead);
  });
});

describe('TaskTracker tracking', () => {
  it('a push that announces a task before its create answer: one poller, the tool name kept', async () => {
    receiver.onGet = async () => rawTask();
    tracker = new TaskTracker({ api: receiver, queryClient: createQueryClient(), connectionId: 1 });
    receiver.push('notifications/tasks/status', rawTask());
    tracker.track('t1', { origin: 'created', tool: 'slow_job', initial: normaliseTask({ task: rawTask() }) });
    expect(task()).toMatchObject({ tool: 'slow_job', origin: 'created' });
    await vi.advanceTimersByTimeAsync(3000);
    expect(polls()).toBe(3);
  });
});

describe('TaskTracker input_required', () => {
  it('opens tasks/result once per input round; not-ready means never again, the terminal fetch still comes', async () => {
    let status = 'input_required';
    receiver.onGet = async () => rawTask({ status });
    receiver.onResult = async () => {
      if (status !== 'completed') throw rpcError(-32602, 'Task is not in a terminal state');
      return { content: [{ type: 'text', text: 'ok' }] };
    };
    start();
    await vi.advanceTimersByTimeAsync(1000); // input_required seen → tasks/result opened → not-ready
    expect(receiver.count('tasks/result')).toBe(1);
    expect(task().result.state).toBe('not-ready');
    status = 'working';
    await vi.advanceTimersByTimeAsync(1000);
    status = 'input_required';
    await vi.advanceTimersByTimeAsync(1000); // a second round: the receiver already said it never blocks
    expect(receiver.count('tasks/result')).toBe(1);
    status = 'completed';
    await vi.advanceTimersByTimeAsync(1000);
    expect(receiver.count('tasks/result')).toBe(2);
    expect(task().result.state).toBe('fetched');
  });

  it('holds at most three tasks/result open for input; the fourth waits its turn', async () => {
    const release = new Map<string, () => void>();
    receiver.onGet = async (id) => rawTask({ taskId: id, status: 'input_required' });
    receiver.onResult = (id) => new Promise((resolve) => release.set(id, () => resolve({ content: [] })));
    tracker = new TaskTracker({ api: receiver, queryClient: createQueryClient(), connectionId: 1 });
    for (const id of ['a', 'b', 'c', 'd']) {
      tracker.track(id, {
        origin: 'created',
        initial: normaliseTask({ task: rawTask({ taskId: id, status: 'input_required' }) }),
      });
    }
    await vi.advanceTimersByTimeAsync(10);
    expect(receiver.count('tasks/result')).toBe(3);
    expect(tracker.store.getState().tasks.get('d')?.result).toEqual({
      state: 'queued-for-input',
      position: 1,
    });
    release.get('a')!();
    await vi.advanceTimersByTimeAsync(10);
    expect(receiver.count('tasks/result', 'd')).toBe(1);
    expect(tracker.store.getState().tasks.get('a')?.result.state).toBe('fetched');
  });

  it('records what the receiver asked on the task’s timeline', () => {
    start();
    tracker.noteInput('t1', { method: 'elicitation/create', phase: 'asked' });
    tracker.noteInput('t1', { method: 'elicitation/create', phase: 'answered', detail: 'accept' });
    expect(
      task()
        .entries.filter((e) => e.kind === 'input')
        .map((e) => e.kind === 'input' && e.phase),
    ).toEqual(['asked', 'answered']);
  });
});
