import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, chainTimeout, systemClock } from './tracker-types';

beforeEach(() => vi.useFakeTimers({ now: 0 }));
afterEach(() => vi.useRealTimers());

describe('timers for any delay', () => {
  it('chains a delay longer than a timer holds, and fires exactly when due', () => {
    const fired = vi.fn();
    chainTimeout(fired, 1e12);
    vi.advanceTimersByTime(MAX_TIMER_MS + 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1e12 - MAX_TIMER_MS - 2);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('can be cancelled at any step of the chain, leaving no timer behind', () => {
    const fired = vi.fn();
    const handle = systemClock.setTimeout(fired, 2 ** 31 + 5);
    vi.advanceTimersByTime(MAX_TIMER_MS);
    systemClock.clearTimeout(handle);
    vi.advanceTimersByTime(10);
    expect(fired).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('treats a NaN or negative delay as now, and Infinity as never', () => {
    const now = vi.fn();
    const never = vi.fn();
    chainTimeout(now, Number.NaN);
    chainTimeout(now, -5);
    const forever = chainTimeout(never, Infinity);
    vi.advanceTimersByTime(0);
    expect(now).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(5 * MAX_TIMER_MS);
    expect(never).not.toHaveBeenCalled();
    forever.cancel();
  });
});
