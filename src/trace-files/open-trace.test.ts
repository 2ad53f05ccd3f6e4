import { afterEach, describe, expect, it } from 'vitest';
import { initialReplaySpeed, initialTraceUrl, readCapped, sameOriginTraceUrl } from './open-trace';
import { replayNow, useReplay } from '../state/replay-store';

const page = 'http://127.0.0.1:5173/?trace=/demo-trace.json';

describe('?trace=', () => {
  it('loads from the page’s own origin only, and says why not otherwise', () => {
    expect(String(sameOriginTraceUrl('/demo-trace.json', page))).toBe(
      'http://127.0.0.1:5173/demo-trace.json',
    );
    expect(String(sameOriginTraceUrl('traces/a.json', 'http://127.0.0.1:5173/x/'))).toBe(
      'http://127.0.0.1:5173/x/traces/a.json',
    );
    for (const foreign of [
      'https://example.com/t.json',
      '//example.com/t.json',
      'http://127.0.0.1:5174/t.json',
      'http://localhost:5173/t.json',
    ])
      expect(sameOriginTraceUrl(foreign, page)).toMatch(/own origin \(http:\/\/127\.0\.0\.1:5173\) only/);
    expect(sameOriginTraceUrl('javascript:alert(1)', page)).toMatch(/own origin/);
    expect(sameOriginTraceUrl('data:application/json,{}', page)).toMatch(/own origin/);
  });

  it('reads the trace and the speed from the page’s query', () => {
    expect(initialTraceUrl('?trace=%2Fdemo-trace.json&speed=1')).toBe('/demo-trace.json');
    expect(initialTraceUrl('?server=/demo/mcp')).toBeNull();
    expect(initialReplaySpeed('?speed=1')).toBe(1);
    expect(initialReplaySpeed('?speed=instant')).toBe('instant');
    expect(initialReplaySpeed('?speed=1000')).toBe(4);
    expect(initialReplaySpeed('')).toBe(4);
  });
});

describe('the page’s replay clock', () => {
  afterEach(() => useReplay.setState({ connectionId: undefined, info: undefined, news: undefined }));

  it('follows the replay’s virtual time at its speed, stands when paused, and stops at the end', () => {
    expect(replayNow(5000)).toBeUndefined();
    const info = { receiverUrl: 'x', exportedAt: '', startedAt: 100_000, endedAt: 110_000, tasks: 1 };
    const news = {
      at: 101_000,
      realAt: 5000,
      speed: 4 as const,
      playing: true,
      ended: false,
      startedAt: 100_000,
      endedAt: 110_000,
    };
    useReplay.setState({ connectionId: 2, info, news });
    expect(replayNow(5000)).toBe(101_000);
    expect(replayNow(6000)).toBe(105_000);
    expect(replayNow(60_000)).toBe(110_000);
    useReplay.setState({ news: { ...news, playing: false } });
    expect(replayNow(60_000)).toBe(101_000);
  });
});

describe('reading a ?trace= body', () => {
  /** A body streamed in chunks with no content-length, counting how many chunks the reader pulled. */
  function streamed(chunks: number, size: number) {
    let pulled = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled === chunks) return controller.close();
        pulled++;
        controller.enqueue(new Uint8Array(size).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    });
    return { response: new Response(body), pulled: () => pulled, cancelled: () => cancelled };
  }

  it('stops past the cap without a content-length, and cancels the rest', async () => {
    const body = streamed(1_000, 1024);
    expect(body.response.headers.get('content-length')).toBeNull();
    expect(await readCapped(body.response, 10 * 1024)).toBeUndefined();
    expect(body.pulled()).toBeLessThan(20);
    expect(body.cancelled()).toBe(true);
  });

  it('reads a body under the cap whole, multi-byte characters across chunks included', async () => {
    const bytes = new TextEncoder().encode('{"name":"zürich ✓"}');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
        controller.close();
      },
    });
    expect(await readCapped(new Response(body), 1024)).toBe('{"name":"zürich ✓"}');
  });

  it('refuses a declared length past the cap before reading', async () => {
    const response = new Response('{}', { headers: { 'content-length': String(10 ** 9) } });
    expect(await readCapped(response, 1024)).toBeUndefined();
  });
});
