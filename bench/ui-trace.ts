/**
 * What the page's main thread does besides JavaScript. A CPU profile shows rendering (style, layout, paint,
 * the compositor's commit) and message decoding only as "(program)"; a Chrome trace of the same window names
 * them. With BENCH_UI_TRACE set, bench:ui traces each CPU window and the completions phase too, and prints the
 * main thread's heaviest trace events by self time (an event's time less the events nested in it), and what
 * each long task spent its time on.
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
  args?: {
    name?: string;
    data?: { functionName?: string; url?: string; lineNumber?: number };
  };
}

export const TRACE_ON = process.env.BENCH_UI_TRACE !== undefined && process.env.BENCH_UI_TRACE !== '';

const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'blink', 'cc'];

export async function startTrace(browser: Browser, page: Page): Promise<void> {
  await browser.startTracing(page, { categories: CATEGORIES });
}

export interface TraceFigures {
  /** self time (ms) and count per event name, heaviest first */
  top: [string, number, number][];
  /** each task over 50 ms on the main thread: its length and its heaviest events by self time (ms) */
  longTasks: { ms: number; top: [string, number][] }[];
}

const LONG_TASK_MS = 50;

/** An event's name, with the function a FunctionCall ran (its name, file and line). */
function nameOf(e: TraceEvent): string {
  const data = e.args?.data;
  if (e.name !== 'FunctionCall' || !data) return e.name;
  const file = (data.url ?? '').replace(/^.*\//, '');
  return `FunctionCall ${data.functionName || '(anonymous)'} ${file}:${(data.lineNumber ?? 0) + 1}`;
}

/**
 * The renderer's main thread over the trace: self time (ms) and count per event name, heaviest first, and
 * what each long task spent its time on. With BENCH_UI_PROFILE_DIR set, the trace is written there too
 * (`<label>.trace.json`, for DevTools' Performance panel).
 */
export async function stopTrace(browser: Browser, label: string, topN = 10): Promise<TraceFigures> {
  const buffer = await browser.stopTracing();
  const dir = process.env.BENCH_UI_PROFILE_DIR;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${label.replace(/[^a-z0-9]+/gi, '-')}.trace.json`), buffer);
  }
  const events = (JSON.parse(buffer.toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
  // The page's renderer: of the main threads in the trace (a spare renderer has one too), the busiest.
  const mains = events.filter(
    (e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain',
  );
  const load = new Map<string, number>();
  for (const e of events)
    if (e.ph === 'X') load.set(`${e.pid}:${e.tid}`, (load.get(`${e.pid}:${e.tid}`) ?? 0) + 1);
  const main = mains.sort(
    (a, b) => (load.get(`${b.pid}:${b.tid}`) ?? 0) - (load.get(`${a.pid}:${a.tid}`) ?? 0),
  )[0];
  if (!main) return { top: [], longTasks: [] };
  const spans = events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && (e.dur ?? 0) > 0)
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const self = new Map<string, number>();
  const count = new Map<string, number>();
  interface Open {
    end: number;
    name: string;
    /** the long task this event is inside, if any */
    task?: Map<string, number>;
  }
  const longTasks: { ms: number; self: Map<string, number> }[] = [];
  const open: Open[] = [];
  const add = (map: Map<string, number> | undefined, name: string, ms: number) =>
    map?.set(name, (map.get(name) ?? 0) + ms);
  for (const e of spans) {
    const ms = (e.dur ?? 0) / 1000;
    const end = e.ts + (e.dur ?? 0);
    while (open.length > 0 && open[open.length - 1]!.end <= e.ts) open.pop();
    const parent = open[open.length - 1];
    const name = nameOf(e);
    let task = parent?.task;
    if (!parent && ms > LONG_TASK_MS) {
      task = new Map();
      longTasks.push({ ms, self: task });
    }
    if (parent) {
      add(self, parent.name, -ms);
      add(parent.task, parent.name, -ms);
    }
    add(self, name, ms);
    add(task, name, ms);
    count.set(name, (count.get(name) ?? 0) + 1);
    open.push({ end, name, task });
  }
  const heaviest = (map: Map<string, number>, n: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
  return {
    top: heaviest(self, topN).map(([name, ms]): [string, number, number] => [name, ms, count.get(name) ?? 0]),
    longTasks: longTasks.map((t) => ({ ms: t.ms, top: heaviest(t.self, 6) })),
  };
}
