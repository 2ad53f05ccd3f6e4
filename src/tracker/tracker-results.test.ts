import { describe, expect, it, vi } from 'vitest';
import { createQueryClient } from './queries';
import { normaliseTask } from '../mcp';
import { TaskTracker } from './tracker';
import { rawTask } from '../../test/helpers/scripted-receiver';
import { trackerFixture } from '../../test/helpers/tracker-fixture';
import { rpcError } from '../../test/fixtures/shapes';

const { ctx, start, task, polls } = trackerFixture();

describe('TaskTracker results', () => {
  it('-32602 from tasks/result is recorded once, never looped on', async () => {
    ctx.receiver.onGet = async () => rawTask({ status: 'completed' });
    ctx.receiver.onResult = async () => {
      throw rpcError(-32602, 'Task has expired');
    };
    start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ctx.receiver.count('tasks/result')).toBe(1);
    expect(task().result).toMatchObject({ state: 'unavailable', error: { kind: 'purged' } });
  });

  it('retries tasks/result on transport errors with backoff, then keeps the result', async () => {
    let n = 0;
    ctx.receiver.onGet = async () => rawTask({ status: 'failed' });
    ctx.receiver.onResult = async () => {
      if (++n < 3) throw new TypeError('Failed to fetch');
      return { taskId: 't1', status: 'failed', result: null };
    };
    start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(task().result.state).toBe('retrying');
    await vi.advanceTimersByTimeAsync(1000 + 2000);
    expect(ctx.receiver.count('tasks/result')).toBe(3);
    expect(task().result.state).toBe('fetched');
  });
});

describe('TaskTracker TTL and purge', () => {
  it('after a terminal task’s ttl runs out, asks once whether it was purged', async () => {
    let purged = false;
    const createdAt = new Date(Date.now()).toISOString();
    ctx.receiver.onGet = async () => {
      if (purged) throw rpcError(-32602, 'Task has expired');
      return rawTask({ status: 'completed', ttl: 5000, createdAt });
    };
    ctx.receiver.onResult = async () => ({ content: [] });
    start(rawTask({ ttl: 5000 }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(task().lifecycle).toBe('terminal');
    purged = true;
    await vi.advanceTimersByTimeAsync(5000);
    expect(task().lifecycle).toBe('purged');
    expect(task().pollsAfterTerminal).toBe(0);
    expect(ctx.receiver.count('tasks/get')).toBe(2);
  });

  it('estimates the ctx.receiver’s clock offset from its timestamps', async () => {
    const ahead = 7000;
    ctx.receiver.onGet = async () => rawTask({ lastUpdatedAt: new Date(Date.now() + ahead).toISOString() });
    start(
      rawTask({
        createdAt: new Date(Date.now() + ahead).toISOString(),
        lastUpdatedAt: new Date(Date.now() + ahead).toISOString(),
      }),
    );
    await vi.advanceTimersByTimeAsync(2000);
    expect(ctx.tracker.store.getState().clockOffsetMs).toBe(ahead);
  });

  it('counts a clock sample that leaves the offset at 0 (the receiver’s clock is then known to agree)', async () => {
    ctx.receiver.onGet = async () => rawTask({ lastUpdatedAt: new Date(Date.now()).toISOString() });
    start(rawTask({ createdAt: new Date().toISOString(), lastUpdatedAt: new Date().toISOString() }));
    await vi.advanceTimersByTimeAsync(10);
    expect(ctx.tracker.store.getState()).toMatchObject({ clockOffsetMs: 0, clockSamples: 1 });
  });
});

describe('TaskTracker tracking', () => {
  it('a push that announces a task before its create answer: one poller, the tool name kept', async () => {
    ctx.receiver.onGet = async () => rawTask();
    ctx.tracker.dispose();
    ctx.tracker = new TaskTracker({ api: ctx.receiver, queryClient: createQueryClient(), connectionId: 1 });
    ctx.receiver.push('notifications/tasks/status', rawTask());
    ctx.tracker.track('t1', {
      origin: 'created',
      tool: 'slow_job',
      initial: normaliseTask({ task: rawTask() }),
    });
    expect(task()).toMatchObject({ tool: 'slow_job', origin: 'created' });
    await vi.advanceTimersByTimeAsync(3000);
    expect(polls()).toBe(3);
  });

  it('a task the check created keeps the check’s mark, though a push announced it first', () => {
    ctx.receiver.onGet = async () => rawTask();
    ctx.receiver.push('notifications/tasks/status', rawTask());
    expect(task()).toMatchObject({ origin: 'notification' });
    expect(task().startedBy).toBeUndefined();
    ctx.tracker.track('t1', {
      origin: 'created',
      startedBy: 'check',
      tool: 'slow_job',
      initial: normaliseTask({ task: rawTask() }),
    });
    expect(task()).toMatchObject({ tool: 'slow_job', origin: 'created', startedBy: 'check' });
  });
});

describe('TaskTracker input_required', () => {
  it('opens tasks/result once per input round; not-ready means never again, the terminal fetch still comes', async () => {
    let status = 'input_required';
    ctx.receiver.onGet = async () => rawTask({ status });
    ctx.receiver.onResult = async () => {
      if (status !== 'completed') throw rpcError(-32602, 'Task is not in a terminal state');
      return { content: [{ type: 'text', text: 'ok' }] };
    };
    start();
    await vi.advanceTimersByTimeAsync(1000); // input_required seen → tasks/result opened → not-ready
    expect(ctx.receiver.count('tasks/result')).toBe(1);
    expect(task().result.state).toBe('not-ready');
    status = 'working';
    await vi.advanceTimersByTimeAsync(1000);
    status = 'input_required';
    await vi.advanceTimersByTimeAsync(1000); // a second round: the ctx.receiver already said it never blocks
    expect(ctx.receiver.count('tasks/result')).toBe(1);
    status = 'completed';
    await vi.advanceTimersByTimeAsync(1000);
    expect(ctx.receiver.count('tasks/result')).toBe(2);
    expect(task().result.state).toBe('fetched');
  });

  it('holds at most three tasks/result open for input; the fourth waits its turn', async () => {
    const release = new Map<string, () => void>();
    ctx.receiver.onGet = async (id) => rawTask({ taskId: id, status: 'input_required' });
    ctx.receiver.onResult = (id) => new Promise((resolve) => release.set(id, () => resolve({ content: [] })));
    ctx.tracker.dispose();
    ctx.tracker = new TaskTracker({ api: ctx.receiver, queryClient: createQueryClient(), connectionId: 1 });
    for (const id of ['a', 'b', 'c', 'd']) {
      ctx.tracker.track(id, {
        origin: 'created',
        initial: normaliseTask({ task: rawTask({ taskId: id, status: 'input_required' }) }),
      });
    }
    await vi.advanceTimersByTimeAsync(10);
    expect(ctx.receiver.count('tasks/result')).toBe(3);
    expect(ctx.tracker.store.getState().tasks.get('d')?.result).toEqual({
      state: 'queued-for-input',
      position: 1,
    });
    release.get('a')!();
    await vi.advanceTimersByTimeAsync(10);
    expect(ctx.receiver.count('tasks/result', 'd')).toBe(1);
    expect(ctx.tracker.store.getState().tasks.get('a')?.result.state).toBe('fetched');
  });

  it('records what the ctx.receiver asked on the task’s timeline', () => {
    start();
    ctx.tracker.noteInput('t1', { method: 'elicitation/create', phase: 'asked' });
    ctx.tracker.noteInput('t1', { method: 'elicitation/create', phase: 'answered', detail: 'accept' });
    expect(
      task()
        .entries.filter((e) => e.kind === 'input')
        .map((e) => e.kind === 'input' && e.phase),
    ).toEqual(['asked', 'answered']);
  });
});
