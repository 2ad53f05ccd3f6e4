import { afterEach, describe, expect, it } from 'vitest';
import { initialReplaySpeed, initialTraceUrl, sameOriginTraceUrl } from './open-trace';
import { replayNow, useReplay } from '../state/replay';

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
