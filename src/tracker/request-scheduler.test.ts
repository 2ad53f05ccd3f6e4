import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RequestScheduler, SchedulerClosed } from './request-scheduler';

/** A request whose answer the test releases by hand. */
function deferred() {
  let release!: () => void;
  const promise = new Promise<string>((resolve) => (release = () => resolve('ok')));
  return { promise, release };
}

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe('RequestScheduler', () => {
  it('never has more requests out than its slots', async () => {
    const scheduler = new RequestScheduler({ slots: 2 });
    const held = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = held.map((d, i) =>
      scheduler.run('poll', Date.now(), () => {
        started.push(i);
        return d.promise;
      }),
    );
    expect(started).toEqual([0, 1]);
    expect(scheduler.stats()).toMatchObject({ inFlight: 2, queuedPolls: 1 });
    held[0]!.release();
    await runs[0];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    held[1]!.release();
    held[2]!.release();
    await Promise.all(runs);
    expect(scheduler.stats().inFlight).toBe(0);
  });

  it('sends a result ahead of every queued poll, and polls most-overdue first', async () => {
    const scheduler = new RequestScheduler({ slots: 1 });
    const blocker = deferred();
    const order: string[] = [];
    const work = (name: string) => () => {
      order.push(name);
      return Promise.resolve(name);
    };
    const first = scheduler.run('poll', Date.now(), () => blocker.promise);
    const later = [
      scheduler.run('poll', 5_000, work('poll due at 5 s')),
      scheduler.run('poll', 1_000, work('poll due at 1 s')),
      scheduler.run('result', 9_000, work('result')),
      scheduler.run('poll', 3_000, work('poll due at 3 s')),
    ];
    blocker.release();
    await first;
    await Promise.all(later);
    expect(order).toEqual(['result', 'poll due at 1 s', 'poll due at 3 s', 'poll due at 5 s']);
  });

  it('frees the slot when a request fails', async () => {
    const scheduler = new RequestScheduler({ slots: 1 });
    await expect(scheduler.run('poll', 0, () => Promise.reject(new Error('refused')))).rejects.toThrow(
      'refused',
    );
    await expect(scheduler.run('poll', 0, () => Promise.resolve('next'))).resolves.toBe('next');
  });

  it('rejects what is still queued when the connection closes', async () => {
    const scheduler = new RequestScheduler({ slots: 1 });
    const blocker = deferred();
    const inFlight = scheduler.run('poll', 0, () => blocker.promise);
    const queued = scheduler.run('poll', 0, () => Promise.resolve('never'));
    scheduler.close();
    await expect(queued).rejects.toBeInstanceOf(SchedulerClosed);
    await expect(scheduler.run('result', 0, () => Promise.resolve('late'))).rejects.toBeInstanceOf(
      SchedulerClosed,
    );
    blocker.release();
    await expect(inFlight).resolves.toBe('ok');
  });

  it('reports polls per second and how long polls waited for a slot', async () => {
    const scheduler = new RequestScheduler({ slots: 1 });
    const dueAt = Date.now();
    vi.advanceTimersByTime(300);
    await scheduler.run('poll', dueAt, () => Promise.resolve(1));
    await scheduler.run('poll', Date.now(), () => Promise.resolve(2));
    const stats = scheduler.stats();
    expect(stats.queueWaitMedianMs).toBe(300);
    expect(stats.pollsPerSecond).toBe(2);
  });

  it('widens or narrows its budget while running', async () => {
    const scheduler = new RequestScheduler({ slots: 1 });
    const held = [deferred(), deferred()];
    const started: number[] = [];
    const runs = held.map((d, i) =>
      scheduler.run('poll', 0, () => {
        started.push(i);
        return d.promise;
      }),
    );
    expect(started).toEqual([0]);
    scheduler.setSlots(2);
    expect(started).toEqual([0, 1]);
    held.forEach((d) => d.release());
    await Promise.all(runs);
  });
});
