import { describe, expect, it } from 'vitest';
import { LineReader } from './line-reader';
import { ConsoleRing, plainText } from './console-ring';

function reader(max = 16) {
  const lines: string[] = [];
  const overflows: number[] = [];
  const r = new LineReader(
    max,
    (l) => lines.push(l),
    (n) => overflows.push(n),
  );
  return { r, lines, overflows };
}

describe('LineReader: stdio framing', () => {
  it('splits on \\n across chunks, drops a \\r before it, keeps a last line without newline', () => {
    const { r, lines } = reader();
    r.push(Buffer.from('{"a":1}\r\n{"b"'));
    r.push(Buffer.from(':2}\n\n'));
    r.push(Buffer.from('tail'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '']);
    r.end();
    expect(lines.at(-1)).toBe('tail');
  });

  it('drops a line over the limit as it comes, reports its size, and reads on after it', () => {
    const { r, lines, overflows } = reader(8);
    r.push(Buffer.from('0123456'));
    r.push(Buffer.from('789abcdef'));
    r.push(Buffer.from('ghij\nok\n'));
    expect(overflows).toEqual([20]);
    expect(lines).toEqual(['ok']);
  });

  it('decodes a UTF-8 character split between chunks', () => {
    const { r, lines } = reader();
    const bytes = Buffer.from('é\n');
    r.push(bytes.subarray(0, 1));
    r.push(bytes.subarray(1));
    expect(lines).toEqual(['é']);
  });
});

describe('ConsoleRing', () => {
  it('strips terminal colours and control characters, keeps tabs', () => {
    expect(plainText('\u001b[1;31mred\u001b[0m\tbell\u0007\u001b]0;title\u0007')).toBe('red\tbell');
  });

  it('keeps the newest lines within its caps, numbered, and says how many went', () => {
    const ring = new ConsoleRing({ maxLines: 3, maxBytes: 1000, maxLineChars: 10 }, () => 5);
    for (const text of ['a', 'b', 'c', 'd', 'a very long line indeed']) ring.push('stderr', text);
    expect(ring.after(0).map((l) => l.text)).toEqual(['c', 'd', 'a very lon… (13 more characters)']);
    expect(ring.dropped).toBe(2);
    expect(ring.after(4).map((l) => l.seq)).toEqual([5]);
    expect(ring.last('stderr', 2)).toEqual(['d', 'a very lon… (13 more characters)']);
    const bytes = new ConsoleRing({ maxLines: 100, maxBytes: 5, maxLineChars: 100 });
    bytes.push('stderr', 'abc');
    bytes.push('stderr', 'def');
    expect(bytes.after(0).map((l) => l.text)).toEqual(['def']);
  });
});
