import { describe, expect, it } from 'vitest';
import { BoundedLists } from './bounded-lists';

describe('BoundedLists', () => {
  it('gives back what was held for a key, in order, once', () => {
    const held = new BoundedLists<number>(10, 10);
    held.add('a', 1);
    held.add('b', 2);
    held.add('a', 3);
    expect(held.take('a')).toEqual([1, 3]);
    expect(held.take('a')).toEqual([]);
    expect(held.take('b')).toEqual([2]);
  });

  it('drops the oldest key past its key cap, and the oldest value past its per-key cap', () => {
    const held = new BoundedLists<number>(2, 3);
    for (let i = 0; i < 5; i++) held.add('a', i);
    held.add('b', 10);
    held.add('c', 20);
    expect(held.take('a')).toEqual([]);
    expect(held.take('b')).toEqual([10]);
    expect(held.take('c')).toEqual([20]);
    for (let i = 0; i < 5; i++) held.add('d', i);
    expect(held.take('d')).toEqual([2, 3, 4]);
  });
});
