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

describe('SseReader, an event of many short lines', () => {
  it('lets it go once its data passes the cap, holding no more of it, and reads the next event', () => {
    const events: SseEvent[] = [];
    const reader = new SseReader((e) => events.push(e), 100);
    for (let i = 0; i < 10_000; i++) reader.push('data: 0123456789\n');
    reader.push('\ndata: next\n\n');
    expect(events).toEqual([{ data: 'next' }]);
    expect(reader.dropped).toBe(1);
  });
});
