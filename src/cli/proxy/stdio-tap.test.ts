import { describe, expect, it } from 'vitest';
import { RingTap, tapReader } from './stdio-tap';

describe("the stdio proxy's tap", () => {
  it('keeps each message of a chunked stream, in order, with its direction and time', () => {
    const tap = new RingTap();
    const notes = { overLong: () => undefined, notJson: () => undefined };
    const reader = tapReader(tap, 'server', notes, { now: () => 42 });
    reader.push(Buffer.from('{"jsonrpc":"2.0","id":1,"res'));
    reader.push(Buffer.from('ult":{}}\r\n{"jsonrpc":"2.0","method":"n"}\n\n{"jsonrpc":"2.0","id":2}'));
    reader.end();
    expect(tap.after(0)).toEqual([
      { seq: 1, direction: 'server', message: { jsonrpc: '2.0', id: 1, result: {} }, at: 42 },
      { seq: 2, direction: 'server', message: { jsonrpc: '2.0', method: 'n' }, at: 42 },
      { seq: 3, direction: 'server', message: { jsonrpc: '2.0', id: 2 }, at: 42 },
    ]);
    expect(tap.after(2).map((m) => m.seq)).toEqual([3]);
  });

  it('keeps at most its cap, the newest; lines that are not JSON or too long are noted, not kept', () => {
    const tap = new RingTap(3);
    const noted: string[] = [];
    const reader = tapReader(
      tap,
      'client',
      {
        overLong: (direction, bytes) => noted.push(`${direction} long ${bytes}`),
        notJson: (direction, line) => noted.push(`${direction} text ${line}`),
      },
      { maxLineBytes: 16 },
    );
    reader.push(Buffer.from('1\n2\nhello\n3\n4\n5\n"a string of more than 16"\n'));
    expect(tap.after(0).map((m) => m.message)).toEqual([3, 4, 5]);
    expect(tap.dropped).toBe(2);
    expect(noted).toEqual(['client text hello', 'client long 26']);
  });

  it('keeps within its bytes, counted by the lines read (or the message written as JSON)', () => {
    const tap = new RingTap(100, 10);
    tap.record('server', 'abcd', 1, 4);
    tap.record('server', 'efgh', 2, 4);
    tap.record('client', 'ij', 3); // "ij" as JSON: 4 bytes
    expect(tap.after(0).map((m) => m.message)).toEqual(['efgh', 'ij']);
    tap.record('client', 'a line larger than the cap', 4, 30);
    expect(tap.after(0).map((m) => m.message)).toEqual(['a line larger than the cap']);
    expect(tap.dropped).toBe(3);
  });
});

describe('what the stdio tap keeps of a credential', () => {
  it('nothing: OAuth token fields and the --env values given to the server are redacted before a line is kept', () => {
    const tap = new RingTap();
    const notes = { overLong: () => undefined, notJson: () => undefined };
    const reader = tapReader(tap, 'server', notes, { secrets: ['env-secret-1234'] });
    reader.push(
      Buffer.from(
        '{"jsonrpc":"2.0","id":1,"result":{"access_token":"at-abcdefgh","note":"key env-secret-1234"}}\n',
      ),
    );
    expect(JSON.stringify(tap.after(0))).not.toMatch(/at-abcdefgh|env-secret-1234/);
    expect(tap.after(0)[0]?.message).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { access_token: '[redacted]', note: 'key [redacted]' },
    });
  });
});
