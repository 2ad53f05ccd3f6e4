import { describe, expect, it } from 'vitest';
import { SseReader, type SseEvent } from './sse-reader';

const read = (chunks: string[], maxLineChars = 1000) => {
  const events: SseEvent[] = [];
  const reader = new SseReader((e) => events.push(e), maxLineChars);
  for (const chunk of chunks) reader.push(chunk);
  return { events, dropped: reader.dropped };
};

describe('SseReader', () => {
  it('reads events split anywhere, with \\n, \\r\\n or \\r line ends, comments skipped, data lines joined', () => {
    expect(
      read(['event: a\r', '\ndata: 1\r\ndata:2\r', '\r', ': ping\n\nid: 9\rdata: x\r\r', 'data: tail'])
        .events,
    ).toEqual([
      { event: 'a', data: '1\n2' },
      { id: '9', data: 'x' },
    ]);
  });

  it('drops a line past its cap, and only that line', () => {
    const { events, dropped } = read(['data: ', 'y'.repeat(50), '\ndata: kept\n\n'], 20);
    expect(events).toEqual([{ data: 'kept' }]);
    expect(dropped).toBe(1);
  });
});
