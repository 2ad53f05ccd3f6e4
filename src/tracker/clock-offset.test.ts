import { describe, expect, it } from 'vitest';
import { ClockOffsetEstimator, estimateClockOffset } from './clock-offset';
import type { TaskSnapshot } from '../mcp';

/** A snapshot whose server timestamp is `lastUpdatedAtMs`: all the clock reads of an answer. */
const stamped = (lastUpdatedAtMs: number): TaskSnapshot => ({
  taskId: 't',
  status: 'working',
  shape: 'flat',
  lastUpdatedAtMs,
});

describe('estimateClockOffset', () => {
  it('takes the freshest (largest) sample; none means no offset', () => {
    expect(estimateClockOffset([])).toBe(0);
    expect(estimateClockOffset([4200, 4950, 4600])).toBe(4950);
    expect(estimateClockOffset([-3100, -2980])).toBe(-2980);
  });
});

describe('ClockOffsetEstimator', () => {
  it('learns from fresh timestamps only, each task giving the freshest lower bound', () => {
    const clock = new ClockOffsetEstimator();
    expect(clock.note('a', stamped(5000), undefined, 1000)).toEqual({ offset: 4000 });
    expect(clock.note('a', stamped(5000), stamped(5000), 9000)).toEqual({});
    // 6000 − 3000 = 3000 is below the 4000 already known for this task: no change.
    expect(clock.note('a', stamped(6000), stamped(5000), 3000)).toEqual({});
    expect(clock.note('a', stamped(9500), stamped(6000), 5000)).toEqual({
      offset: 4500,
    });
    expect(clock.count).toBe(1);
  });

  it('takes the median across tasks, so one task a day ahead cannot move it, and names that task', () => {
    const clock = new ClockOffsetEstimator();
    const day = 86_400_000;
    const now = 1_000_000;
    clock.note('ok-1', stamped(now + 200), undefined, now);
    const future = clock.note('ahead', stamped(now + day), undefined, now);
    // Two tasks: the one nearer our own clock wins, and the other is flagged.
    expect(future.offset).toBeUndefined();
    expect(future.outlierMs).toBe(day - 200);
    clock.note('ok-2', stamped(now + 300), undefined, now);
    const again = clock.note('ahead', stamped(now + day + 1000), stamped(now + day), now + 1000);
    expect(again.offset).toBeUndefined();
    expect(again.outlierMs).toBeGreaterThan(day - 1000);
  });

  it('follows a receiver whose whole clock is ahead', () => {
    const clock = new ClockOffsetEstimator();
    const ahead = 5 * 60_000;
    let offset: number | undefined;
    for (const id of ['a', 'b', 'c'])
      offset = clock.note(id, stamped(10_000 + ahead), undefined, 10_000).offset ?? offset;
    expect(offset).toBe(ahead);
  });
});
