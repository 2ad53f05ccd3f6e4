import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, systemClock } from './tracker-types';
import { TimerQueue } from './timer-queue';

beforeEach(() => vi.useFakeTimers({ now: 0 }));
afterEach(() => vi.useRealTimers());

describe('many timers on one', () => {
  it('fires each timer when due, never sooner, in due order then set order', () => {
    const queue = new TimerQueue(systemClock);
    const fired: string[] = [];
    queue.setTimeout(() => fired.push('b@20'), 20);
    queue.setTimeout(() => fired.push('a@10'), 10);
    queue.setTimeout(() => fired.push('c@20'), 20);
    vi.advanceTimersByTime(9);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['a@10']);
    vi.advanceTimersByTime(10);
    expect(fired).toEqual(['a@10', 'b@20', 'c@20']);
    expect(queue.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('holds one timer of the clock beneath for a thousand, re-armed only for an earlier one', () => {
    const queue = new TimerQueue(systemClock);
    const set = vi.spyOn(globalThis, 'setTimeout');
    let fired = 0;
    for (let i = 0; i < 1000; i++) queue.setTimeout(() => fired++, 1000 + i);
    expect(set).toHaveBeenCalledTimes(1);
    queue.setTimeout(() => fired++, 500);
    expect(set).toHaveBeenCalledTimes(2);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(2000);
    expect(fired).toBe(1001);
    set.mockRestore();
  });

  it('never fires a cleared timer, and lets the clock timer go when nothing waits', () => {
    const queue = new TimerQueue(systemClock);
    const cleared = vi.fn();
    const kept = vi.fn();
    const handle = queue.setTimeout(cleared, 10);
    queue.setTimeout(kept, 30);
    queue.clearTimeout(handle);
    queue.clearTimeout(handle);
    vi.advanceTimersByTime(30);
    expect(cleared).not.toHaveBeenCalled();
    expect(kept).toHaveBeenCalledTimes(1);
    const last = queue.setTimeout(cleared, 10);
    queue.clearTimeout(last);
    queue.setTimeout(kept, 5);
    vi.advanceTimersByTime(5);
    expect(vi.getTimerCount()).toBe(0);
    expect(queue.size).toBe(0);
  });

  it('sweeps timers cleared long before their time, so rescheduling never grows the heap', () => {
    const queue = new TimerQueue(systemClock);
    let handle = queue.setTimeout(() => undefined, 60_000);
    for (let i = 0; i < 10_000; i++) {
      queue.clearTimeout(handle);
      handle = queue.setTimeout(() => undefined, 60_000);
    }
    expect(queue.size).toBe(1);
    expect((queue as unknown as { heap: { size: number } }).heap.size).toBeLessThan(2100);
  });

  it('fires a timer set while firing for 0 ms on a later turn, and waits any delay (NaN as 0)', () => {
    const queue = new TimerQueue(systemClock);
    const order: string[] = [];
    queue.setTimeout(() => {
      order.push('first');
      queue.setTimeout(() => order.push('again'), 0);
    }, 0);
    queue.setTimeout(() => order.push('nan'), Number.NaN);
    vi.advanceTimersByTime(0);
    expect(order).toEqual(['first', 'nan']);
    vi.advanceTimersByTime(1);
    expect(order).toEqual(['first', 'nan', 'again']);
    const far = vi.fn();
    queue.setTimeout(far, 2 * MAX_TIMER_MS);
    vi.advanceTimersByTime(2 * MAX_TIMER_MS - 1);
    expect(far).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(far).toHaveBeenCalledTimes(1);
  });

  it('fires the others when one throws, and stops everything on dispose', () => {
    const queue = new TimerQueue(systemClock);
    const after = vi.fn();
    const errors: unknown[] = [];
    const spy = vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((fn) => {
      try {
        fn();
      } catch (error) {
        errors.push(error);
      }
    });
    queue.setTimeout(() => {
      throw new Error('boom');
    }, 1);
    queue.setTimeout(after, 1);
    vi.advanceTimersByTime(1);
    expect(after).toHaveBeenCalledTimes(1);
    expect(errors).toHaveLength(1);
    spy.mockRestore();
    const never = vi.fn();
    queue.setTimeout(never, 10);
    queue.dispose();
    vi.advanceTimersByTime(10);
    expect(never).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('moves no timer when the wall clock is set back or forward (an NTP step, a laptop waking)', () => {
    const queue = new TimerQueue(systemClock);
    const soon = vi.fn();
    const later = vi.fn();
    queue.setTimeout(soon, 200);
    queue.setTimeout(later, 3000);
    vi.setSystemTime(Date.now() - 1500);
    vi.advanceTimersByTime(200);
    expect(soon).toHaveBeenCalledTimes(1);
    vi.setSystemTime(Date.now() + 5000);
    vi.advanceTimersByTime(100);
    expect(later).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2700);
    expect(later).toHaveBeenCalledTimes(1);
  });

  it('after dispose, sets and clears nothing', () => {
    const queue = new TimerQueue(systemClock);
    const handle = queue.setTimeout(() => undefined, 10);
    queue.dispose();
    queue.clearTimeout(handle);
    expect(queue.setTimeout(() => undefined, 10)).toBeUndefined();
    expect(queue.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
