import { describe, expect, it } from 'vitest';
import type { SeenMessage } from '../../mcp';
import { ObservedBuffer } from './observed-buffer';

const line = (seq: number, size = 10) => ({
  seq,
  size,
  seen: { at: seq, wallTime: seq, from: 'client', message: { id: seq } } satisfies SeenMessage,
});
const ids = (buffer: ObservedBuffer) => buffer.messages.map((m) => (m.message as { id: number }).id);

describe('ObservedBuffer', () => {
  it('keeps the newest messages within its count, counting those let go', () => {
    const buffer = new ObservedBuffer(3, 1_000);
    buffer.add([line(1), line(2)]);
    buffer.add([line(3), line(4), line(5)]);
    expect(ids(buffer)).toEqual([3, 4, 5]);
    expect(buffer.dropped).toBe(2);
  });

  it('keeps them within the characters their lines took; the newest stays however large', () => {
    const buffer = new ObservedBuffer(100, 100);
    buffer.add([line(1, 40), line(2, 40), line(3, 40)]);
    expect(ids(buffer)).toEqual([2, 3]);
    buffer.add([line(4, 500)]);
    expect(ids(buffer)).toEqual([4]);
    expect(buffer.dropped).toBe(3);
    buffer.add([line(5, 10)]);
    expect(ids(buffer)).toEqual([5]);
  });
});
