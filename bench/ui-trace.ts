/**
 * What the page's main thread does besides JavaScript. A CPU profile shows rendering (style, layout, paint,
 * the compositor's commit) and message decoding only as "(program)"; a Chrome trace of the same window names
 * them. With BENCH_UI_TRACE set, bench:ui traces the drawer-closed CPU window too and prints the main thread's
 * heaviest trace events by self time (an event's time less the events nested in it).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

export const TRACE_ON = process.env.BENCH_UI_TRACE !== undefined && process.env.BENCH_UI_TRACE !== '';

const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'blink', 'cc'];

export async function startTrace(browser: Browser, page: Page): Promise<void> {
  await browser.startTracing(page, { categories: CATEGORIES });
}

/**
 * Self time (ms) and count per event name on the renderer's main thread, heaviest first. With
 * BENCH_UI_PROFILE_DIR set, the trace is written there too (`<label>.trace.json`, for DevTools' Performance panel).
 */
export async function stopTrace(
  browser: Browser,
  label: string,
  top = 10,
): Promise<[string, number, number][]> {
  const buffer = await browser.stopTracing();
  const dir = process.env.BENCH_UI_PROFILE_DIR;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${label.replace(/[^a-z0-9]+/gi, '-')}.trace.json`), buffer);
  }
  const events = (JSON.parse(buffer.toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
  const main = events.find(
    (e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain',
  );
  if (!main) return [];
  const spans = events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && (e.dur ?? 0) > 0)
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const self = new Map<string, number>();
  const count = new Map<string, number>();
  const open: { end: number; name: string }[] = [];
  for (const e of spans) {
    const end = e.ts + (e.dur ?? 0);
    while (open.length > 0 && open[open.length - 1]!.end <= e.ts) open.pop();
    const parent = open[open.length - 1];
    if (parent) self.set(parent.name, (self.get(parent.name) ?? 0) - (e.dur ?? 0) / 1000);
    self.set(e.name, (self.get(e.name) ?? 0) + (e.dur ?? 0) / 1000);
    count.set(e.name, (count.get(e.name) ?? 0) + 1);
    open.push({ end, name: e.name });
  }
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]): [string, number, number] => [name, ms, count.get(name) ?? 0]);
}
