import { describe, expect, it, vi } from 'vitest';
import { createQueryClient, queryKeys } from './queries';
import { HttpStatusError } from '../mcp/errors';
import { TaskTracker } from './tracker';
import { rawTask } from '../../test/helpers/scripted-receiver';
import { trackerFixture } from '../../test/helpers/tracker-fixture';
import { rpcError } from '../../test/fixtures/shapes';

const { ctx, start, task, polls } = trackerFixture();

describe('TaskTracker polling', () => {
  it('polls at the pollInterval of the last answer, re-read every time', async () => {
    let interval = 1000;
    ctx.receiver.onGet = async () => rawTask({ pollInterval: interval });
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
    ctx.receiver.onGet = async () => rawTask({ pollInterval: 3000 });
    ctx.settings.minPollIntervalMs = 500;
    start(rawTask({ pollInterval: 3000 }));
    await vi.advanceTimersByTimeAsync(9000);
    expect(polls()).toBe(3);
    const gaps = ctx.receiver.calls.slice(1).map((c, i) => c.at - ctx.receiver.calls[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(3000);
  });

  it('a user minimum slows polling down', async () => {
    ctx.receiver.onGet = async () => rawTask();
    ctx.settings.minPollIntervalMs = 5000;
    start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(polls()).toBe(2);
  });

  it('keeps one request in flight per task', async () => {
    ctx.receiver.onGet = () => new Promise(() => {}); // never answers
    start();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(polls()).toBe(1);
  });

  it('keeps each snapshot once: the Worker query cache holds the very object the tracker merged', async () => {
    start();
    const cached = () => ctx.queryClient.getQueryData(queryKeys.task(1, 't1'));
    await vi.advanceTimersByTimeAsync(1000);
    expect(polls()).toBe(1);
    expect(cached()).toBe(ctx.tracker.snapshot('t1'));
    ctx.receiver.push('notifications/tasks/status', rawTask({ statusMessage: 'pushed' }));
    expect(ctx.tracker.snapshot('t1')?.statusMessage).toBe('pushed');
    expect(cached()).toBe(ctx.tracker.snapshot('t1'));
  });

  it('a push updates at once and does not bring the next poll forward', async () => {
    ctx.receiver.onGet = async () => rawTask();
    start();
    await vi.advanceTimersByTimeAsync(400);
    ctx.receiver.push('notifications/tasks/updated', rawTask({ statusMessage: 'pushed' }));
    expect(task().notificationCount).toBe(1);
    expect(ctx.tracker.snapshot('t1')?.statusMessage).toBe('pushed');
    await vi.advanceTimersByTimeAsync(599);
    expect(polls()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(polls()).toBe(1);
  });

  it('stops at a terminal status and fetches the result in the same tick, once', async () => {
    ctx.receiver.onGet = async () => rawTask({ status: 'completed' });
    let resultCallsWhenTerminalSeen = -1;
    ctx.receiver.onResult = async () => ({ content: [{ type: 'text', text: 'ok' }] });
    start();
    ctx.tracker.store.subscribe((s) => {
      if (s.tasks.get('t1')?.lifecycle === 'terminal' && resultCallsWhenTerminalSeen < 0) {
        // The store update and the tasks/result call happen in one synchronous pass; by the next microtask it is sent.
        queueMicrotask(() => (resultCallsWhenTerminalSeen = ctx.receiver.count('tasks/result')));
      }
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(task()).toMatchObject({ status: 'completed', lifecycle: 'terminal', nextPollInMs: null });
    expect(resultCallsWhenTerminalSeen).toBe(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(polls()).toBe(1);
    expect(ctx.receiver.count('tasks/result')).toBe(1);
    expect(task().result.state).toBe('fetched');
    expect(task().pollsAfterTerminal).toBe(0);
  });

  it('a push of completed also fetches the result once, and polling stops', async () => {
    ctx.receiver.onGet = async () => rawTask();
    ctx.receiver.onResult = async () => ({ taskId: 't1', status: 'completed', result: { content: [] } });
    start();
    ctx.receiver.push('notifications/tasks/status', rawTask({ status: 'completed' }));
    ctx.receiver.push('notifications/tasks', rawTask({ status: 'completed' }));
    await vi.advanceTimersByTimeAsync(5000);
    expect(polls()).toBe(0);
    expect(ctx.receiver.count('tasks/result')).toBe(1);
  });

  it('-32602 on a known task: purged, polling stops, the history stays', async () => {
    let n = 0;
    ctx.receiver.onGet = async () => {
      if (++n < 3) return rawTask({ statusMessage: `step ${n}` });
      throw rpcError(-32602, 'Task has expired');
    };
    start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(polls()).toBe(3);
    expect(task().lifecycle).toBe('purged');
    expect(task().entries.filter((e) => e.kind === 'observation')).toHaveLength(3);
    expect(ctx.tracker.snapshot('t1')?.statusMessage).toBe('step 2');
  });

  it('a pasted id the ctx.receiver never knew: unknown, no more polls', async () => {
    ctx.receiver.onGet = async () => {
      throw rpcError(-32602, 'Task not found');
    };
    ctx.tracker.dispose();
    ctx.tracker = new TaskTracker({ api: ctx.receiver, queryClient: createQueryClient(), connectionId: 1 });
    ctx.tracker.track('t1', { origin: 'manual' });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(polls()).toBe(1);
    expect(task().lifecycle).toBe('unknown');
  });

  it('backs off exponentially on rate limits and honours Retry-After', async () => {
    let n = 0;
    ctx.receiver.onGet = async () => {
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
    ctx.receiver.onGet = async () => {
      throw new TypeError('Failed to fetch');
    };
    start();
    await vi.advanceTimersByTimeAsync(200_000);
    expect(task().backoffMs).toBe(30_000);
    expect(task().lastError?.kind).toBe('cors-or-network');
  });

  it('pause stops every poller; resume starts them again from now', async () => {
    ctx.receiver.onGet = async () => rawTask();
    start();
    ctx.settings.paused = true;
    ctx.tracker.settingsChanged();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(polls()).toBe(0);
    expect(task().nextPollInMs).toBeNull();
    ctx.settings.paused = false;
    ctx.tracker.settingsChanged();
    await vi.advanceTimersByTimeAsync(1000);
    expect(polls()).toBe(1);
  });

  it('ignores an unknown status and an illegal move out of a terminal one, with warnings', async () => {
    let status = 'bogus';
    ctx.receiver.onGet = async () => rawTask({ status });
    ctx.receiver.onResult = async () => ({ content: [] });
    start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(task().status).toBe('working');
    expect(task().warningCount).toBe(1);
    status = 'completed';
    await vi.advanceTimersByTimeAsync(1000);
    ctx.receiver.push('notifications/tasks/status', rawTask({ status: 'working' }));
    expect(task().status).toBe('completed');
    const last = task().entries.at(-1);
    expect(last?.kind === 'observation' && last.warnings[0]?.code).toBe('illegal-transition');
  });
});
