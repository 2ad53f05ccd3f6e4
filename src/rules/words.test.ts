import { describe, expect, it } from 'vitest';
import { count, its, was } from './words';

describe('counts in the card’s reasons', () => {
  it('say one and many as prose', () => {
    expect(count(1, 'task')).toBe('1 task');
    expect(count(0, 'task')).toBe('0 tasks');
    expect(count(3, 'tasks/result answer')).toBe('3 tasks/result answers');
    expect(count(2, 'nextCursor')).toBe('2 nextCursors');
    expect(`${count(1, 'cancel')} ${was(1)} refused`).toBe('1 cancel was refused');
    expect(`${count(2, 'cancel')} ${was(2)} refused`).toBe('2 cancels were refused');
    expect(`${count(1, 'task')} ${was(1)} gone before ${its(1)} ttl`).toBe('1 task was gone before its ttl');
    expect(`${count(2, 'task')} ${was(2)} gone before ${its(2)} ttl`).toBe(
      '2 tasks were gone before their ttl',
    );
  });
});
