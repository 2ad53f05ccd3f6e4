import { describe, expect, it } from 'vitest';
import { ObservedStream, type ObservedLine } from './observed-stream';

const route = { url: 'http://127.0.0.1:5173', token: 't' };

/** A fetch whose answers are given in turn: each a status and the chunks of its body, then the stream ends. */
function scriptedFetch(answers: Array<{ status: number; chunks: string[] }>) {
  const urls: string[] = [];
  const fetch = (async (input: RequestInfo | URL) => {
    urls.push(String(input));
    const answer = answers.shift() ?? { status: 200, chunks: [] };
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of answer.chunks) controller.enqueue(encoder.encode(chunk));
        if (answers.length > 0 || answer.status !== 200) controller.close();
      },
    });
    return new Response(body, { status: answer.status });
  }) as typeof globalThis.fetch;
  return { fetch, urls };
}

const seen = (seq: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ seq, seen: { at: seq, wallTime: seq, from: 'client', message: { id: seq }, ...extra } });

describe('ObservedStream', () => {
  it('reads lines however they are cut, skips what is not a message, and reads on after a cut from the last seq', async () => {
    const { fetch, urls } = scriptedFetch([
      {
        status: 200,
        chunks: [
          `${seen(1)}\nnot json\n{"seq":"x"}\n`,
          `${seen(2, { headers: { 'Content-Type': 'a', n: 5 } }).slice(0, 20)}`,
          `${seen(2, { headers: { 'Content-Type': 'a', n: 5 } }).slice(20)}\n{"dropped":3}\n"text"\n`,
        ],
      },
      // The server's backlog after the cut repeats what was read: it is not read twice.
      { status: 200, chunks: [`${seen(2)}\n${seen(6, { from: 'server', sessionId: 's' })}\n`] },
    ]);
    const lines: ObservedLine[] = [];
    const dropped: number[] = [];
    const states: string[] = [];
    const stream = new ObservedStream(fetch, route, 'demo', {
      lines: (read) => lines.push(...read),
      dropped: (count) => dropped.push(count),
      state: (state) => states.push(state.status),
    });
    void stream.start();
    await expect.poll(() => lines.map((l) => l.seq), { timeout: 5_000 }).toEqual([1, 2, 6]);
    stream.stop();
    expect(lines[1]?.seen.headers).toEqual({ 'content-type': 'a' });
    expect(lines[2]?.seen).toMatchObject({ from: 'server', sessionId: 's' });
    expect(dropped).toEqual([3]);
    expect(states.slice(0, 3)).toEqual(['open', 'cut', 'open']);
    expect(urls.map((u) => new URL(u).searchParams.get('after'))).toEqual(['0', '2']);
  });

  it('a refusal (an unknown source) is final: said, and not asked again', async () => {
    const { fetch, urls } = scriptedFetch([
      { status: 404, chunks: ['{"error":"No observed source \\"x\\""}'] },
    ]);
    const states: Array<{ status: string; error?: { message: string } }> = [];
    const stream = new ObservedStream(fetch, route, 'x', {
      lines: () => undefined,
      dropped: () => undefined,
      state: (state) => states.push(state),
    });
    // Reading ends with the refusal: no retry is waited for.
    await stream.start();
    expect(states).toEqual([
      {
        status: 'refused',
        error: expect.objectContaining({ message: 'No observed source "x"', httpStatus: 404 }),
      },
    ]);
    expect(urls).toHaveLength(1);
  });
});
