import { describe, expect, it, vi } from 'vitest';
import { HttpStatusError } from '../mcp/errors';
import { rawTask } from '../../test/helpers/scripted-receiver';
import { trackerFixture } from '../../test/helpers/tracker-fixture';
import { rpcError } from '../../test/fixtures/shapes';
import { AUTO_TRACK_PER_MINUTE, MAX_POLLED_TASKS } from './limits';
import { RequestScheduler } from './request-scheduler';
import { TaskTracker } from './tracker';
import { createQueryClient } from './queries';
import { normaliseTask } from '../mcp';
import { MAX_TIMER_MS } from './tracker-types';

const { ctx, start, task, polls } = trackerFixture();

describe('TaskTracker against a hostile receiver', () => {
  it('a pollInterval longer than a timer can hold is waited out, never cut short', async () => {
    ctx.receiver.onGet = async () => rawTask({ pollInterval: 1e12 });
    start(rawTask({ pollInterval: 1e12 }));
    expect(task().nextPollInMs).toBe(1e12);
    // A plain setTimeout(fn, 1e12) would fire at once; three timer lifetimes later there is still no poll.
    await vi.advanceTimersByTimeAsync(3 * MAX_TIMER_MS);
    expect(polls()).toBe(0);
    // Poll now, by hand, is the way to ask sooner; the interval after it is the receiver's again.
    ctx.tracker.pollNow('t1');
    await vi.advanceTimersByTimeAsync(0);
    expect(polls()).toBe(1);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS + 1);
    expect(polls()).toBe(1);
  });

  it('a Retry-After of weeks (HTTP 429 or -32429 data) is honoured, not turned into a storm', async () => {
    ctx.receiver.onGet = async () => {
      throw new HttpStatusError(429, '', 4_000_000_000);
    };
    start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(polls()).toBe(1);
    // Almost two timer lifetimes: a timer that fired early would have polled many times by now.
    await vi.advanceTimersByTimeAsync(3_999_000_000);
    expect(polls()).toBe(1);
    ctx.receiver.onGet = async () => {
      throw rpcError(-32429, 'Too Many Requests', { retryAfterMs: 4_000_000_000 });
    };
    await vi.advanceTimersByTimeAsync(1_000_000);
    expect(polls()).toBe(2);
    await vi.advanceTimersByTimeAsync(3_999_000_000);
    expect(polls()).toBe(2);
    await vi.advanceTimersByTimeAsync(1_000_000);
    expect(polls()).toBe(3);
  });

  it('coalesces a flood of pushes for one task: the first at once, the latest per window', async () => {
    ctx.receiver.onGet = async () => rawTask({ pollInterval: 60_000 });
    start(rawTask({ pollInterval: 60_000 }));
    for (let i = 0; i < 1000; i++)
      ctx.receiver.push(
        'notifications/tasks/status',
        rawTask({ pollInterval: 60_000, statusMessage: `push ${i}` }),
      );
    expect(task().notificationCount).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(task().notificationCount).toBe(2);
    expect(ctx.tracker.snapshot('t1')?.statusMessage).toBe('push 999');
  });

  it('follows at most AUTO_TRACK_PER_MINUTE pushed task ids a minute; the rest are counted and offered', async () => {
    ctx.receiver.onGet = async () => rawTask({ pollInterval: 60_000 });
    start(rawTask({ pollInterval: 60_000 }));
    for (let i = 0; i < AUTO_TRACK_PER_MINUTE + 300; i++)
      ctx.receiver.push('notifications/tasks/status', rawTask({ taskId: `x${i}`, pollInterval: 60_000 }));
    const state = ctx.tracker.store.getState();
    expect(state.order.length).toBe(1 + AUTO_TRACK_PER_MINUTE);
    expect(state.untrackedSeen).toBe(300);
    expect(ctx.tracker.trackSeen(100)).toBe(100);
    expect(ctx.tracker.store.getState()).toMatchObject({ untrackedSeen: 200 });
    expect(ctx.tracker.store.getState().order.length).toBe(1 + AUTO_TRACK_PER_MINUTE + 100);
    // A minute later the window has room again.
    await vi.advanceTimersByTimeAsync(60_000);
    ctx.receiver.push('notifications/tasks/status', rawTask({ taskId: 'late', pollInterval: 60_000 }));
    expect(ctx.tracker.isTracked('late')).toBe(true);
  });

  it('one task stamped a day ahead is flagged and does not move the clock offset of the others', async () => {
    const day = 86_400_000;
    const now = Date.now();
    ctx.receiver.onGet = async () => rawTask();
    start(rawTask({ lastUpdatedAt: new Date(now + 150).toISOString() }));
    ctx.tracker.track('ahead', {
      origin: 'list',
      initial: {
        value: {
          taskId: 'ahead',
          status: 'working',
          createdAt: new Date(now + day).toISOString(),
          createdAtMs: now + day,
          lastUpdatedAt: new Date(now + day).toISOString(),
          lastUpdatedAtMs: now + day,
          ttl: 600_000,
          pollInterval: 1000,
          shape: 'flat',
        },
        warnings: [],
      },
    });
    const offset = ctx.tracker.store.getState().clockOffsetMs;
    expect(Math.abs(offset)).toBeLessThan(1000);
    const ahead = ctx.tracker.store.getState().tasks.get('ahead')!;
    expect(
      ahead.entries.flatMap((e) => (e.kind === 'observation' ? e.warnings : [])).map((w) => w.message),
    ).toContainEqual(expect.stringMatching(/ahead of this receiver's clock/));
  });

  it('a poll queued behind a full budget is not sent if its task ended while it waited', async () => {
    const scheduler = new RequestScheduler({ slots: 1 });
    let release!: () => void;
    const blocker = scheduler.run('result', 0, () => new Promise<void>((resolve) => (release = resolve)));
    ctx.tracker.dispose();
    ctx.tracker = new TaskTracker({
      api: ctx.receiver,
      queryClient: createQueryClient(),
      connectionId: 1,
      scheduler,
    });
    ctx.receiver.onGet = async () => rawTask();
    ctx.tracker.track('t1', { origin: 'created', initial: normaliseTask({ task: rawTask() }) });
    await vi.advanceTimersByTimeAsync(1000);
    expect(scheduler.stats().queuedPolls).toBe(1);
    ctx.receiver.push('notifications/tasks/status', rawTask({ status: 'cancelled' }));
    release();
    await blocker;
    await vi.advanceTimersByTimeAsync(0);
    expect(polls()).toBe(0);
    expect(task()).toMatchObject({ status: 'cancelled', pollCount: 0, pollsAfterTerminal: 0 });
  });

  it('past the polling cap, listed tasks are kept but polled only once a person asks', async () => {
    const cap = 20;
    ctx.tracker.dispose();
    ctx.tracker = new TaskTracker({
      api: ctx.receiver,
      queryClient: createQueryClient(),
      connectionId: 1,
      maxPolledTasks: cap,
    });
    expect(MAX_POLLED_TASKS).toBe(5000);
    ctx.receiver.onGet = async () => rawTask({ pollInterval: 60_000 });
    ctx.receiver.onList = async () =>
      Array.from({ length: cap + 5 }, (_, i) => rawTask({ taskId: `l${i}`, pollInterval: 60_000 }));
    await ctx.tracker.syncList();
    const state = ctx.tracker.store.getState();
    expect(state.order).toHaveLength(cap + 5);
    expect([...state.tasks.values()].filter((t) => t.dormant).map((t) => t.taskId)).toEqual(
      Array.from({ length: 5 }, (_, i) => `l${cap + i}`),
    );
    await vi.advanceTimersByTimeAsync(60_000);
    const dormantId = `l${cap}`;
    expect(ctx.receiver.count('tasks/get', dormantId)).toBe(0);
    expect(ctx.receiver.count('tasks/get', 'l0')).toBe(1);
    ctx.tracker.pollNow(dormantId);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ctx.receiver.count('tasks/get', dormantId)).toBe(2);
    expect(ctx.tracker.store.getState().tasks.get(dormantId)?.dormant).toBe(false);
  });

  it('a push that raises the pollInterval re-arms the timer: no poll sooner than the new interval', async () => {
    ctx.receiver.onGet = async () => rawTask({ pollInterval: 10_000 });
    start(rawTask({ pollInterval: 1000 }));
    await vi.advanceTimersByTimeAsync(500);
    ctx.receiver.push('notifications/tasks/status', rawTask({ pollInterval: 10_000 }));
    await vi.advanceTimersByTimeAsync(9_999);
    expect(polls()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(polls()).toBe(1);
  });
});
