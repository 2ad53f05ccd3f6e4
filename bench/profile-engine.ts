/**
 * Where the CPU goes while the dashboard polls N live tasks: a CDP CPU profile of the engine Worker and of the
 * page's main thread over the same window, in Debian Chromium, with the polls the receiver saw meanwhile.
 * Prints figures; asserts nothing.
 *
 *   npx vite build --minify false --sourcemap --logLevel warn && node --import tsx bench/profile-engine.ts
 *
 * (A minified build works too; names are then the minifier's, but with --sourcemap each frame is mapped back
 * to its source file and line.) Same receiver (live-receiver.ts) and app server as bench:ui. Once the list shows
 * all N tasks, an unprofiled baseline window counts polls/s, then both profilers run for the profile window.
 * The Worker is reached as bench/ui-heap.ts does: Target.setAutoAttach (flatten: false) on the page's CDP
 * session, commands wrapped in Target.sendMessageToTarget. Each window also reports the CPU every process
 * the bench started used (Chromium's browser, renderer, network service and GPU processes thread by thread,
 * the receiver, this Node process), per request, from /proc: on a 2-core machine they all compete, and the
 * bare loops give the same figures for comparison.
 *
 * Env: BENCH_PROFILE_TASKS (1000), BENCH_PROFILE_SECONDS (15), BENCH_PROFILE_BASELINE_SECONDS (5, 0: none),
 * BENCH_PROFILE_INTERVAL_US (sampling interval, 200), BENCH_PROFILE_BARE (1: profile the bare fetch loop in
 * the page and in a Worker first, 0: skip), BENCH_PROFILE_VARIANTS (1: time fetch() in a Worker with the
 * app's request options, variant by variant), BENCH_PROFILE_ONLY_REFERENCE (1: stop after those two),
 * BENCH_PROFILE_TRACE_SECONDS (3, 0: none: a Chromium trace after the profiles, to split "(program)"),
 * BENCH_PROFILE_RAF_MS (an experiment: replace the app page's requestAnimationFrame by a timer of this many
 * ms, so batches are applied and the page renders at most that often),
 * BENCH_PROFILE_TOP (30), BENCH_PROFILE_SAVE (a directory: write the .cpuprofile files there, to open in
 * Chrome DevTools, or to analyse again: `node --import tsx bench/profile-engine.ts file.cpuprofile …`, with
 * BENCH_PROFILE_POLLS set to the polls in the window for the per-poll figures; the build's source maps must
 * still be in dist/).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type CDPSession } from '@playwright/test';
import { startApp } from '../src/devserver/start';
import { CHROMIUM_ARGS, chromiumPath } from '../test/helpers/chromium';
import { spawnLiveReceiver, type LiveReceiverProcess } from './live-receiver';
import { bareFetchLoop, listShowsAll } from './ui-page';

const positive = (raw: string | undefined, fallback: number) => {
  const value = Number(raw);
  return raw !== undefined && raw !== '' && Number.isFinite(value) && value >= 0 ? value : fallback;
};
const TASKS = Math.max(1, Math.floor(positive(process.env.BENCH_PROFILE_TASKS, 1000)));
const SECONDS = positive(process.env.BENCH_PROFILE_SECONDS, 15) || 15;
const BASELINE_SECONDS = positive(process.env.BENCH_PROFILE_BASELINE_SECONDS, 5);
const INTERVAL_US = Math.max(50, Math.floor(positive(process.env.BENCH_PROFILE_INTERVAL_US, 200)));
const BARE = process.env.BENCH_PROFILE_BARE !== '0';
const VARIANTS_ON = process.env.BENCH_PROFILE_VARIANTS === '1';
const ONLY_REFERENCE = process.env.BENCH_PROFILE_ONLY_REFERENCE === '1';
const TOP = Math.max(1, Math.floor(positive(process.env.BENCH_PROFILE_TOP, 30)));
const TOP_TOTAL = 15;
const SAVE_DIR = process.env.BENCH_PROFILE_SAVE;
const TRACE_SECONDS = positive(process.env.BENCH_PROFILE_TRACE_SECONDS, 3);
/** An experiment: the app's page gets animation frames only every this many ms (a setTimeout in their place). */
const RAF_MS = positive(process.env.BENCH_PROFILE_RAF_MS, 0);
const LOAD_TIMEOUT_MS = 120_000;
const ANSWER_TIMEOUT_MS = 30_000;
const VIEWPORT = { width: 1400, height: 860 };
const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const fixed = (value: number | null | undefined, digits = 0) =>
  value === null || value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);

// ---------------------------------------------------------------------------------------------------------
// CDP profile types (the parts used here)

interface CallFrame {
  functionName: string;
  scriptId: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

// ---------------------------------------------------------------------------------------------------------
// Source maps: a small VLQ decoder, so a frame in the bundle reads as its source file and line.

interface Mapped {
  source: string;
  line: number;
  name?: string;
}

const B64 = new Map(
  [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].map((c, i) => [c, i]),
);

class SourceMap {
  /** per generated line: segments [genCol, source, srcLine, srcCol, name?], sorted by genCol */
  private readonly lines: number[][][] = [];
  constructor(
    private readonly sources: string[],
    private readonly names: string[],
    mappings: string,
  ) {
    let source = 0;
    let srcLine = 0;
    let srcCol = 0;
    let name = 0;
    for (const lineText of mappings.split(';')) {
      const segments: number[][] = [];
      let genCol = 0;
      for (const segText of lineText.split(',')) {
        if (segText === '') continue;
        const values: number[] = [];
        let value = 0;
        let shift = 0;
        for (const ch of segText) {
          const digit = B64.get(ch) ?? 0;
          value += (digit & 31) << shift;
          if (digit & 32) shift += 5;
          else {
            values.push(value & 1 ? -(value >>> 1) : value >>> 1);
            value = 0;
            shift = 0;
          }
        }
        genCol += values[0] ?? 0;
        if (values.length >= 4) {
          source += values[1]!;
          srcLine += values[2]!;
          srcCol += values[3]!;
          if (values.length >= 5) {
            name += values[4]!;
            segments.push([genCol, source, srcLine, srcCol, name]);
          } else segments.push([genCol, source, srcLine, srcCol]);
        }
      }
      this.lines.push(segments);
    }
  }

  /** 0-based line and column in the bundle. */
  find(line: number, column: number): Mapped | undefined {
    const segments = this.lines[line];
    if (!segments || segments.length === 0) return undefined;
    let lo = 0;
    let hi = segments.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (segments[mid]![0]! <= column) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const seg = segments[Math.max(0, found)]!;
    const source = this.sources[seg[1]!];
    if (source === undefined) return undefined;
    return { source, line: seg[2]! + 1, name: seg[4] === undefined ? undefined : this.names[seg[4]] };
  }
}

const sourceMaps = new Map<string, SourceMap | null>();
function sourceMapFor(url: string): SourceMap | null {
  if (sourceMaps.has(url)) return sourceMaps.get(url)!;
  let map: SourceMap | null = null;
  try {
    const pathname = new URL(url).pathname;
    const file = path.join(DIST, decodeURIComponent(pathname));
    if (file.startsWith(DIST) && existsSync(`${file}.map`)) {
      const raw = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as {
        sources: string[];
        names?: string[];
        mappings: string;
      };
      map = new SourceMap(raw.sources, raw.names ?? [], raw.mappings);
    }
  } catch {
    map = null;
  }
  sourceMaps.set(url, map);
  return map;
}

/** A source path, shortened: the package under node_modules, or the path under src/. */
function shortSource(source: string): string {
  const nm = source.lastIndexOf('node_modules/');
  if (nm >= 0) return source.slice(nm + 'node_modules/'.length);
  const src = source.lastIndexOf('src/');
  if (src >= 0) return source.slice(src);
  return source.replace(/^(\.\.\/)+/, '');
}

/** The package (node_modules/<pkg>) or the app's directory (src/<dir>/<file>) a source belongs to. */
function moduleOf(source: string): string {
  const nm = source.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = source.slice(nm + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  return shortSource(source);
}

// ---------------------------------------------------------------------------------------------------------
// Profile analysis

interface FunctionRow {
  name: string;
  where: string;
  module: string;
  selfMs: number;
  totalMs: number;
}

interface Analysis {
  label: string;
  sampledMs: number;
  samples: number;
  idleMs: number;
  programMs: number;
  gcMs: number;
  functions: FunctionRow[];
  /** self time by module; `nativeMs`: native functions (fetch, text, setTimeout, …) it called, charged to it */
  modules: Array<{ module: string; selfMs: number; nativeMs: number }>;
}

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

function describe(frame: CallFrame): { key: string; name: string; where: string; module: string } {
  const special = SPECIAL.has(frame.functionName);
  const name = frame.functionName || '(anonymous)';
  if (special || !frame.url) {
    const where = frame.url ? `${path.basename(frame.url)}:${frame.lineNumber + 1}` : '';
    return {
      key: `${name}|${frame.url}|${frame.lineNumber}|${frame.columnNumber}`,
      name,
      where,
      module: special ? name : '(native/other)',
    };
  }
  const base = path.basename(new URL(frame.url, 'http://x/').pathname) || frame.url;
  const bundleWhere = `${base}:${frame.lineNumber + 1}`;
  const mapped = sourceMapFor(frame.url)?.find(frame.lineNumber, frame.columnNumber);
  const where = mapped ? `${shortSource(mapped.source)}:${mapped.line}` : bundleWhere;
  return {
    key: `${name}|${frame.url}|${frame.lineNumber}|${frame.columnNumber}`,
    name,
    where,
    module: mapped ? moduleOf(mapped.source) : base,
  };
}

function analyse(label: string, profile: Profile): Analysis {
  const nodes = new Map<number, ProfileNode>(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // Sample i lasts until sample i+1 (DevTools' reading); the last one gets the mean interval.
  const selfUs = new Map<number, number>();
  let total = 0;
  for (let i = 0; i < samples.length; i++) {
    const next = deltas[i + 1];
    const duration = next !== undefined ? Math.max(0, next) : INTERVAL_US;
    selfUs.set(samples[i]!, (selfUs.get(samples[i]!) ?? 0) + duration);
    total += duration;
  }

  // Subtree totals, then inclusive per function, counting a function once per stack (recursion).
  const subtree = new Map<number, number>();
  const root = profile.nodes.find((n) => !parent.has(n.id));
  const order: number[] = [];
  if (root) {
    const stack = [root.id];
    while (stack.length) {
      const id = stack.pop()!;
      order.push(id);
      for (const child of nodes.get(id)?.children ?? []) stack.push(child);
    }
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const id = order[i]!;
    let sum = selfUs.get(id) ?? 0;
    for (const child of nodes.get(id)?.children ?? []) sum += subtree.get(child) ?? 0;
    subtree.set(id, sum);
  }
  const info = new Map<number, ReturnType<typeof describe>>();
  for (const node of profile.nodes) info.set(node.id, describe(node.callFrame));
  const rows = new Map<string, FunctionRow>();
  const row = (id: number) => {
    const d = info.get(id)!;
    let r = rows.get(d.key);
    if (!r) {
      r = { name: d.name, where: d.where, module: d.module, selfMs: 0, totalMs: 0 };
      rows.set(d.key, r);
    }
    return { r, key: d.key };
  };
  for (const [id, us] of selfUs) row(id).r.selfMs += us / 1000;
  if (root) {
    const onPath = new Map<string, number>();
    const walk: Array<{ id: number; leave: boolean }> = [{ id: root.id, leave: false }];
    while (walk.length) {
      const { id, leave } = walk.pop()!;
      const { r, key } = row(id);
      if (leave) {
        const count = onPath.get(key)! - 1;
        if (count === 0) onPath.delete(key);
        else onPath.set(key, count);
        continue;
      }
      const count = onPath.get(key) ?? 0;
      if (count === 0) r.totalMs += (subtree.get(id) ?? 0) / 1000;
      onPath.set(key, count + 1);
      walk.push({ id, leave: true });
      for (const child of nodes.get(id)?.children ?? []) walk.push({ id: child, leave: false });
    }
  }
  const special = (name: string) =>
    [...rows.values()].filter((r) => r.name === name).reduce((a, r) => a + r.selfMs, 0);
  // A native frame (no url: fetch, setTimeout, postMessage, …) is charged to the nearest caller with a url.
  const owner = new Map<number, string>();
  const ownerOf = (id: number): string => {
    const known = owner.get(id);
    if (known !== undefined) return known;
    const node = nodes.get(id)!;
    const d = info.get(id)!;
    const up = parent.get(id);
    const result = node.callFrame.url || SPECIAL.has(d.name) || up === undefined ? d.module : ownerOf(up);
    owner.set(id, result);
    return result;
  };
  const modules = new Map<string, { selfMs: number; nativeMs: number }>();
  for (const [id, us] of selfUs) {
    const native = !nodes.get(id)!.callFrame.url && !SPECIAL.has(info.get(id)!.name);
    const m = ownerOf(id);
    const entry = modules.get(m) ?? { selfMs: 0, nativeMs: 0 };
    if (native) entry.nativeMs += us / 1000;
    else entry.selfMs += us / 1000;
    modules.set(m, entry);
  }
  return {
    label,
    sampledMs: total / 1000,
    samples: samples.length,
    idleMs: special('(idle)'),
    programMs: special('(program)'),
    gcMs: special('(garbage collector)'),
    functions: [...rows.values()].filter((r) => r.name !== '(root)'),
    modules: [...modules.entries()]
      .map(([module, m]) => ({ module, ...m }))
      .sort((a, b) => b.selfMs + b.nativeMs - a.selfMs - a.nativeMs),
  };
}

function printAnalysis(a: Analysis, polls: number) {
  const busy = a.sampledMs - a.idleMs;
  const pct = (ms: number, of = a.sampledMs) => `${fixed((100 * ms) / Math.max(of, 1e-9), 1)} %`;
  const perPoll = (ms: number) => `${fixed((ms / Math.max(polls, 1)) * 1000)} µs`;
  console.log(`\n=== ${a.label} ===`);
  console.log(
    `  sampled ${fixed(a.sampledMs)} ms (${a.samples} samples) · idle ${pct(a.idleMs)} · busy ${fixed(busy)} ms · (program) ${fixed(a.programMs)} ms · GC ${fixed(a.gcMs)} ms (${pct(a.gcMs, busy)} of busy)`,
  );
  console.log(
    `  per tasks/get: busy ${perPoll(busy)}, of which native fetch() ${perPoll(selfOf(a, 'fetch'))}, json() ${perPoll(selfOf(a, 'json'))}, postMessage ${perPoll(selfOf(a, 'postMessage'))}, (program) ${perPoll(a.programMs)}, GC ${perPoll(a.gcMs)}`,
  );
  const table = (title: string, list: FunctionRow[], value: (r: FunctionRow) => number) => {
    console.log(`  ${title}  (ms · % of sampled · % of busy)`);
    const nameWidth = Math.min(48, Math.max(...list.map((r) => r.name.length), 8));
    const whereWidth = Math.min(56, Math.max(...list.map((r) => r.where.length), 8));
    for (const r of list) {
      const v = value(r);
      console.log(
        `    ${r.name.slice(0, nameWidth).padEnd(nameWidth)}  ${r.where.slice(-whereWidth).padEnd(whereWidth)}  ${fixed(v, 1).padStart(8)}  ${pct(v).padStart(7)}  ${pct(v, busy).padStart(7)}`,
      );
    }
  };
  table(
    `top ${TOP} by self time`,
    [...a.functions].sort((x, y) => y.selfMs - x.selfMs).slice(0, TOP),
    (r) => r.selfMs,
  );
  table(
    `top ${TOP_TOTAL} by total (inclusive) time, excluding (idle)/(program)/(garbage collector)`,
    [...a.functions]
      .filter((r) => !SPECIAL.has(r.name))
      .sort((x, y) => y.totalMs - x.totalMs)
      .slice(0, TOP_TOTAL),
    (r) => r.totalMs,
  );
  console.log(
    '  by module (package under node_modules, or app source file): its own JS + the native calls it made (fetch, timers, …)',
  );
  console.log(
    `    ${''.padEnd(52)}  ${'JS ms'.padStart(8)}  ${'+native'.padStart(8)}  ${'% busy'.padStart(7)}  ${'µs/poll'.padStart(8)}`,
  );
  for (const m of a.modules.filter((m) => m.module !== '(idle)').slice(0, 20))
    console.log(
      `    ${m.module.slice(-52).padEnd(52)}  ${fixed(m.selfMs, 1).padStart(8)}  ${fixed(m.nativeMs, 1).padStart(8)}  ${pct(m.selfMs + m.nativeMs, busy).padStart(7)}  ${perPoll(m.selfMs + m.nativeMs).padStart(8)}`,
    );
}

// ---------------------------------------------------------------------------------------------------------
// A short Chromium trace after the profiles: what "(program)" is (layout, paint, IPC, message dispatch…),
// per thread of every process, by thread time (tdur) where the trace has it.

interface TraceEvent {
  ph: string;
  name: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

const TRACE_CATEGORIES = [
  'toplevel',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8.execute',
  'blink.user_timing',
  'loading',
  'navigation',
];

/** Traces while `body` runs; the events arrive after it, so what body measures excludes their transfer. */
async function traceWindow<T>(cdp: CDPSession, body: () => Promise<T>) {
  const events: TraceEvent[] = [];
  const collect = (event: { value: object[] }) => events.push(...(event.value as TraceEvent[]));
  cdp.on('Tracing.dataCollected', collect);
  const complete = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { includedCategories: TRACE_CATEGORIES, recordMode: 'recordAsMuchAsPossible' },
  });
  const value = await body();
  await cdp.send('Tracing.end');
  await complete;
  cdp.off('Tracing.dataCollected', collect);
  return { events, value };
}

/** Self time per thread · event name, nesting worked out per thread from complete ('X') events. */
function traceSelfTimes(events: TraceEvent[]) {
  const threadNames = new Map<string, string>();
  const processNames = new Map<number, string>();
  for (const e of events) {
    if (e.ph !== 'M') continue;
    if (e.name === 'thread_name') threadNames.set(`${e.pid}:${e.tid}`, e.args?.name ?? '?');
    if (e.name === 'process_name') processNames.set(e.pid, e.args?.name ?? '?');
  }
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    if (e.ph !== 'X' || e.dur === undefined) continue;
    const key = `${e.pid}:${e.tid}`;
    const list = byThread.get(key) ?? [];
    list.push(e);
    byThread.set(key, list);
  }
  const self = new Map<string, number>();
  const threadTotals = new Map<string, number>();
  for (const [key, list] of byThread) {
    const pid = Number(key.split(':')[0]);
    const thread = `${processNames.get(pid) ?? pid} ${pid} · ${threadNames.get(key) ?? key}`;
    list.sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
    const stack: Array<{ end: number; name: string; own: number }> = [];
    const close = (upTo: number) => {
      while (stack.length && stack[stack.length - 1]!.end <= upTo) {
        const done = stack.pop()!;
        const name = `${thread} · ${done.name}`;
        self.set(name, (self.get(name) ?? 0) + Math.max(0, done.own));
      }
    };
    for (const e of list) {
      close(e.ts);
      // Thread time when the trace has it (what the CPU did), else wall time.
      const cost = e.tdur ?? e.dur!;
      if (stack.length) stack[stack.length - 1]!.own -= cost;
      else threadTotals.set(thread, (threadTotals.get(thread) ?? 0) + cost);
      stack.push({ end: e.ts + e.dur!, name: e.name, own: cost });
    }
    close(Infinity);
  }
  return { self, threadTotals };
}

function printTrace(events: TraceEvent[], polls: number, seconds: number) {
  const { self, threadTotals } = traceSelfTimes(events);
  const per = (us: number) => `${fixed(us / Math.max(polls, 1))} µs`;
  console.log(
    `\n=== trace, ${fixed(seconds, 1)} s (${fixed(polls)} polls; ${events.length} events; thread time where recorded) ===`,
  );
  console.log('  busiest threads (top-level events):');
  for (const [thread, us] of [...threadTotals].sort((a, b) => b[1] - a[1]).slice(0, 8))
    console.log(
      `    ${thread.slice(0, 70).padEnd(70)}  ${fixed(us / 1000).padStart(6)} ms  ${per(us).padStart(8)}/poll`,
    );
  console.log('  top events by self time:');
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(
      `    ${name.slice(-90).padEnd(90)}  ${fixed(us / 1000).padStart(6)} ms  ${per(us).padStart(8)}/poll`,
    );
}

// ---------------------------------------------------------------------------------------------------------
// CPU of every process this bench started (Chromium's, the receiver, this one), thread by thread, from /proc:
// a CPU profile sees one JS thread; on a 2-core machine the browser process, the network service, the
// compositor and the receiver compete for the same cores.

const CLK_TCK = 100;

interface ProcStat {
  comm: string;
  ppid: number;
  ticks: number;
}

function readStat(file: string): ProcStat | undefined {
  try {
    const text = readFileSync(file, 'utf8');
    const open = text.indexOf('(');
    const close = text.lastIndexOf(')');
    const fields = text.slice(close + 2).split(' ');
    return {
      comm: text.slice(open + 1, close),
      ppid: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]),
    };
  } catch {
    return undefined;
  }
}

function processLabel(pid: number): string {
  if (pid === process.pid) return 'bench node (Playwright)';
  let args: string[];
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/\0| /);
  } catch {
    return `pid ${pid}`;
  }
  if (args.some((a) => a.includes('live-receiver'))) return 'receiver (node)';
  if (!/chrom/i.test(args[0] ?? '')) return path.basename(args[0] ?? `pid ${pid}`);
  const type = args.find((a) => a.startsWith('--type='))?.slice(7);
  const sub = args.find((a) => a.startsWith('--utility-sub-type='))?.slice(19);
  if (!type) return 'chromium browser';
  if (type === 'utility')
    return `chromium ${
      sub
        ?.replace(/\.mojom\./, ' ')
        .split(' ')
        .pop() ?? 'utility'
    }`;
  return `chromium ${type} ${type === 'renderer' ? pid : ''}`.trim();
}

/** Ticks per "process · thread" for this process and all its descendants. */
function cpuSnapshot(): Map<string, number> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(`/proc/${entry}/stat`);
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(Number(entry));
    children.set(stat.ppid, list);
  }
  const pids: number[] = [];
  const queue = [process.pid];
  while (queue.length) {
    const pid = queue.shift()!;
    pids.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  const ticks = new Map<string, number>();
  for (const pid of pids) {
    const label = processLabel(pid);
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const stat = readStat(`/proc/${pid}/task/${tid}/stat`);
      if (!stat) continue;
      const key = `${label} · ${stat.comm.replace(/\d+$/, '')}`;
      ticks.set(key, (ticks.get(key) ?? 0) + stat.ticks);
    }
  }
  return ticks;
}

/** Measures CPU of every descendant thread while `body` runs; prints per-request figures. */
async function withCpu<T>(body: () => Promise<T>) {
  const before = cpuSnapshot();
  const value = await body();
  const after = cpuSnapshot();
  const used = new Map<string, number>();
  for (const [key, ticks] of after) {
    const ms = ((ticks - (before.get(key) ?? 0)) * 1000) / CLK_TCK;
    if (ms > 0) used.set(key, ms);
  }
  return { value, used };
}

function printCpu(title: string, used: Map<string, number>, requests: number, seconds: number) {
  const per = (ms: number) => `${fixed((ms / Math.max(requests, 1)) * 1000)} µs`;
  const total = [...used.values()].reduce((a, b) => a + b, 0);
  const byProcess = new Map<string, number>();
  for (const [key, ms] of used) {
    const proc = key.split(' · ')[0]!;
    byProcess.set(proc, (byProcess.get(proc) ?? 0) + ms);
  }
  console.log(
    `  CPU of this bench's processes, ${title}: ${fixed(total)} ms in ${fixed(seconds, 1)} s = ${fixed(total / seconds / 10)} % of one core; ${per(total)} per request (/proc, 10 ms ticks)`,
  );
  for (const [proc, ms] of [...byProcess].sort((a, b) => b[1] - a[1]).filter(([, ms]) => ms >= 20)) {
    const threads = [...used]
      .filter(([key]) => key.startsWith(`${proc} · `))
      .sort((a, b) => b[1] - a[1])
      .filter(([, t]) => t >= 20)
      .slice(0, 5)
      .map(([key, t]) => `${key.split(' · ')[1]} ${per(t)}`)
      .join(', ');
    console.log(`    ${proc.padEnd(32)} ${per(ms).padStart(8)}   (${threads})`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// CDP plumbing for the page's workers (see ui-heap.ts)

interface WorkerTarget {
  sessionId: string;
  url: string;
  title: string;
}

async function attachWorkers(cdp: CDPSession) {
  const workers = new Map<string, WorkerTarget>();
  const pending = new Map<string, (message: { result?: unknown; error?: unknown } | null) => void>();
  let nextId = 0;
  cdp.on('Target.attachedToTarget', (event) => {
    if (event.targetInfo.type === 'worker')
      workers.set(event.sessionId, {
        sessionId: event.sessionId,
        url: event.targetInfo.url,
        title: event.targetInfo.title,
      });
  });
  cdp.on('Target.detachedFromTarget', (event) => {
    if (event.sessionId) workers.delete(event.sessionId);
  });
  cdp.on('Target.receivedMessageFromTarget', (event) => {
    const message = JSON.parse(event.message) as { id?: number; result?: unknown; error?: unknown };
    if (message.id === undefined) return;
    const key = `${event.sessionId}:${message.id}`;
    pending.get(key)?.(message);
    pending.delete(key);
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  const send = async (sessionId: string, method: string, params: object = {}): Promise<unknown> => {
    const id = ++nextId;
    const key = `${sessionId}:${id}`;
    const answer = new Promise<{ result?: unknown; error?: unknown } | null>((resolve) => {
      pending.set(key, resolve);
      setTimeout(() => {
        if (pending.delete(key)) resolve(null);
      }, ANSWER_TIMEOUT_MS);
    });
    await cdp.send('Target.sendMessageToTarget', {
      sessionId,
      message: JSON.stringify({ id, method, params }),
    });
    const message = await answer;
    if (!message || message.error)
      throw new Error(`${method} in worker: ${JSON.stringify(message?.error ?? 'no answer')}`);
    return message.result;
  };
  return { workers: () => [...workers.values()], send };
}

type Workers = Awaited<ReturnType<typeof attachWorkers>>;

// ---------------------------------------------------------------------------------------------------------

async function newBenchPage(browser: Browser) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  await page.addInitScript('window.__name = (f) => f');
  return { context, page };
}

/** A profile of one thread: the page's (its CDP session) or a worker's (through attachWorkers). */
interface Profiler {
  label: string;
  start(): Promise<void>;
  stop(): Promise<Profile>;
}

function pageProfiler(cdp: CDPSession, label: string): Profiler {
  return {
    label,
    async start() {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: INTERVAL_US });
      await cdp.send('Profiler.start');
    },
    stop: async () => (await cdp.send('Profiler.stop')).profile as Profile,
  };
}

function workerProfiler(workers: Workers, target: WorkerTarget, label: string): Profiler {
  return {
    label,
    async start() {
      await workers.send(target.sessionId, 'Profiler.enable');
      await workers.send(target.sessionId, 'Profiler.setSamplingInterval', { interval: INTERVAL_US });
      await workers.send(target.sessionId, 'Profiler.start');
    },
    stop: async () =>
      ((await workers.send(target.sessionId, 'Profiler.stop')) as { profile: Profile }).profile,
  };
}

/** Runs `body` with every profiler on; returns the profiles, analysed. */
async function profiled(profilers: Profiler[], body: () => Promise<void>) {
  await Promise.all(profilers.map((p) => p.start()));
  await body();
  const profiles = await Promise.all(profilers.map((p) => p.stop()));
  return profilers.map((p, i) => {
    if (SAVE_DIR) {
      mkdirSync(SAVE_DIR, { recursive: true });
      const file = path.join(SAVE_DIR, `${p.label.replace(/[^a-z0-9]+/gi, '-')}-${Date.now()}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profiles[i]));
      console.log(`(saved ${file})`);
    }
    return analyse(p.label, profiles[i]!);
  });
}

/** The same loop as bareFetchLoop, in a dedicated Worker the page starts from a blob. */
function startBareWorker(source: string): Promise<void> {
  const code = `self.__name = (f) => f;
const loop = ${source};
self.onmessage = async (event) => self.postMessage(await loop(event.data));
self.postMessage('ready');`;
  const worker = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })), {
    name: 'bare-fetch-worker',
  });
  (window as unknown as { bareWorker: Worker }).bareWorker = worker;
  return new Promise((resolve) => {
    worker.onmessage = () => resolve();
  });
}

function runBareWorker(args: { url: string; ms: number; inFlight: number }): Promise<unknown> {
  const worker = (window as unknown as { bareWorker: Worker }).bareWorker;
  return new Promise((resolve) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.postMessage(args);
  });
}

const BARE_MS = 3000;

/**
 * The bare fetch loop (five in flight), in the page and then in a Worker, each profiled: requests/s at the
 * receiver and CPU per request of the thread that runs it: what a fetch costs here, with no app around it.
 */
async function bareReference(browser: Browser, receiver: LiveReceiverProcess) {
  const { context, page } = await newBenchPage(browser);
  try {
    const cdp = await context.newCDPSession(page);
    const workers = await attachWorkers(cdp);
    await page.goto(receiver.hostUrl);
    const args = { url: receiver.bareUrl, ms: 500, inFlight: 5 };
    await page.evaluate(bareFetchLoop, args);
    const measure = async (label: string, profiler: Profiler, run: () => Promise<unknown>) => {
      // First without the profiler: the rate, and the CPU of every process per request.
      let from = await receiver.now();
      const { used } = await withCpu(run);
      let to = await receiver.now();
      let requests = await receiver.bareCount(from, to);
      console.log(
        `${label} (${BARE_MS / 1000} s, 5 in flight, no profiler): ${fixed(requests / ((to - from) / 1000))} requests/s at the receiver`,
      );
      printCpu('no profiler', used, requests, (to - from) / 1000);
      const [analysis] = await profiled([profiler], async () => {
        from = await receiver.now();
        await run();
        to = await receiver.now();
      });
      requests = await receiver.bareCount(from, to);
      printBareLine(label, requests / ((to - from) / 1000), requests, analysis!);
    };
    await measure('bare fetch loop in the page', pageProfiler(cdp, 'bare page'), () =>
      page.evaluate(bareFetchLoop, { ...args, ms: BARE_MS }),
    );
    await page.evaluate(startBareWorker, bareFetchLoop.toString());
    const target = workers.workers().find((w) => w.title.includes('bare') || w.url.startsWith('blob:'));
    if (!target) {
      console.log('bare fetch loop in a Worker: the Worker never showed up over CDP');
      return;
    }
    await page.evaluate(runBareWorker, args);
    await measure('bare fetch loop in a Worker', workerProfiler(workers, target, 'bare worker'), () =>
      page.evaluate(runBareWorker, { ...args, ms: BARE_MS }),
    );
  } finally {
    await context.close();
  }
}

/**
 * What a fetch() in a Worker costs with the options the app's stack adds, variant by variant, interleaved
 * so that load from elsewhere on the machine falls on all alike. Plain JS source, run in a blob Worker: each
 * variant is a closed loop of five in flight; the synchronous part of each fetch() call is timed in the
 * Worker with performance.now().
 *   plain     the bare loop: a plain headers object, no signal
 *   sdk-init  + a Headers object, redirect: 'manual' (the SDK's fetchWithinOrigin), an AbortController signal
 *   +deadline + AbortSignal.any([that signal, AbortSignal.timeout(10 s)]) (guarded-fetch.ts)
 *   +reread   + the answer read as text, JSON.parse'd, re-wrapped in new Response() and read again with
 *             .json() (guarded-fetch.ts, then the SDK transport)
 */
const FETCH_VARIANTS_WORKER = `
const variants = {
  plain: { headersObject: false, manual: false, signal: 0, reread: false },
  'sdk-init': { headersObject: true, manual: true, signal: 1, reread: false },
  '+deadline': { headersObject: true, manual: true, signal: 2, reread: false },
  '+reread': { headersObject: true, manual: true, signal: 2, reread: true },
};
async function run({ url, ms, inFlight, variant }) {
  const v = variants[variant];
  const controller = new AbortController();
  let done = 0, failed = 0, id = 0, syncMs = 0;
  const end = performance.now() + ms;
  const base = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': 'bench-bare',
    'mcp-protocol-version': '2025-11-25',
  };
  const lane = async () => {
    while (performance.now() < end) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tasks/get', params: { taskId: 't' + id } });
      const init = { method: 'POST', headers: v.headersObject ? new Headers({ ...base }) : base, body };
      if (v.manual) init.redirect = 'manual';
      if (v.signal === 1) init.signal = controller.signal;
      if (v.signal === 2) init.signal = AbortSignal.any([controller.signal, AbortSignal.timeout(10000)]);
      try {
        const t0 = performance.now();
        const pending = fetch(url, init);
        syncMs += performance.now() - t0;
        let response = await pending;
        if (v.reread) {
          const text = await response.text();
          JSON.parse(text);
          response = new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
        }
        await response.json();
        done++;
      } catch {
        failed++;
        if (failed > 1000) return;
      }
    }
  };
  const t = performance.now();
  await Promise.all(Array.from({ length: inFlight }, lane));
  return { done, failed, ms: performance.now() - t, syncMs };
}
self.onmessage = async (event) => self.postMessage(await run(event.data));
self.postMessage('ready');
`;

const VARIANTS = ['plain', 'sdk-init', '+deadline', '+reread'] as const;
const VARIANT_MS = 1500;
const VARIANT_ROUNDS = 2;

async function fetchVariants(browser: Browser, receiver: LiveReceiverProcess) {
  const { context, page } = await newBenchPage(browser);
  try {
    await page.goto(receiver.hostUrl);
    await page.evaluate(
      (code) =>
        new Promise<void>((resolve) => {
          const worker = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
          (window as unknown as { variantWorker: Worker }).variantWorker = worker;
          worker.onmessage = () => resolve();
        }),
      FETCH_VARIANTS_WORKER,
    );
    const run = (args: { url: string; ms: number; inFlight: number; variant: string }) =>
      page.evaluate(
        (a) =>
          new Promise<{ done: number; failed: number; ms: number; syncMs: number }>((resolve) => {
            const worker = (window as unknown as { variantWorker: Worker }).variantWorker;
            worker.onmessage = (event) => resolve(event.data);
            worker.postMessage(a);
          }),
        args,
      );
    await run({ url: receiver.bareUrl, ms: 500, inFlight: 5, variant: 'plain' });
    const totals = new Map<string, { done: number; ms: number; syncMs: number; failed: number }>();
    for (let round = 0; round < VARIANT_ROUNDS; round++)
      for (const variant of VARIANTS) {
        const r = await run({ url: receiver.bareUrl, ms: VARIANT_MS, inFlight: 5, variant });
        const t = totals.get(variant) ?? { done: 0, ms: 0, syncMs: 0, failed: 0 };
        totals.set(variant, {
          done: t.done + r.done,
          ms: t.ms + r.ms,
          syncMs: t.syncMs + r.syncMs,
          failed: t.failed + r.failed,
        });
      }
    console.log(
      `fetch() variants in a Worker (${VARIANT_ROUNDS} × ${VARIANT_MS / 1000} s each, interleaved, 5 in flight):`,
    );
    for (const variant of VARIANTS) {
      const t = totals.get(variant)!;
      console.log(
        `  ${variant.padEnd(10)} ${fixed(t.done / (t.ms / 1000)).padStart(5)} requests/s · synchronous fetch() ${fixed((t.syncMs / Math.max(t.done, 1)) * 1000).padStart(5)} µs per call${t.failed ? ` · ${t.failed} failed` : ''}`,
      );
    }
  } finally {
    await context.close();
  }
}

function selfOf(a: Analysis, name: string) {
  return a.functions.filter((r) => r.name === name).reduce((sum, r) => sum + r.selfMs, 0);
}

function printBareLine(label: string, perSec: number, requests: number, a: Analysis) {
  label = `${label}, profiled`;
  const busy = a.sampledMs - a.idleMs;
  const per = (ms: number) => fixed((ms / Math.max(requests, 1)) * 1000, 0);
  console.log(
    `${label} (${BARE_MS / 1000} s, 5 in flight): ${fixed(perSec)} requests/s at the receiver; thread idle ${fixed((100 * a.idleMs) / a.sampledMs, 1)} %; per request: busy ${per(busy)} µs, of which native fetch() ${per(selfOf(a, 'fetch'))} µs, json() ${per(selfOf(a, 'json'))} µs, (program) ${per(a.programMs)} µs, GC ${per(a.gcMs)} µs`,
  );
}

async function pollsPerSec(receiver: LiveReceiverProcess, from: number, to: number) {
  const log = await receiver.log();
  let gets = 0;
  let results = 0;
  for (let i = 0; i < log.kind.length; i++) {
    const t = log.arrivedAt[i]!;
    if (t < from || t >= to) continue;
    if (log.kind[i] === 0) gets++;
    else results++;
  }
  const firstCompletion = Math.min(...log.completesAt);
  return {
    getsPerSec: gets / ((to - from) / 1000),
    results,
    allLive: to <= firstCompletion,
    firstCompletion,
  };
}

async function main(receiver: LiveReceiverProcess, browser: Browser, appUrl: string) {
  const assets = path.join(DIST, 'assets');
  const bundleMaps = existsSync(assets) ? readdirSync(assets).filter((f) => f.endsWith('.js.map')).length : 0;
  console.log(
    `profile-engine: Chromium ${browser.version()}; N ${TASKS}; profile ${SECONDS} s at ${INTERVAL_US} µs sampling; baseline ${BASELINE_SECONDS} s; ${bundleMaps ? `${bundleMaps} source maps in dist/assets` : 'no source maps in dist/assets (build with --sourcemap to map frames to sources)'}`,
  );
  if (BARE) await bareReference(browser, receiver);
  if (VARIANTS_ON) await fetchVariants(browser, receiver);
  if (ONLY_REFERENCE) return;

  const { context, page } = await newBenchPage(browser);
  try {
    if (RAF_MS > 0) {
      await page.addInitScript(`{
        const every = ${RAF_MS};
        let next = 1;
        const timers = new Map();
        window.requestAnimationFrame = (callback) => {
          const id = next++;
          timers.set(id, setTimeout(() => { timers.delete(id); callback(performance.now()); }, every));
          return id;
        };
        window.cancelAnimationFrame = (id) => { clearTimeout(timers.get(id)); timers.delete(id); };
      }`);
      console.log(`(experiment: the app's page gets requestAnimationFrame every ${RAF_MS} ms)`);
    }
    const cdp = await context.newCDPSession(page);
    const workers = await attachWorkers(cdp);
    const createdAt = await receiver.reset(TASKS);
    await page.goto(`${appUrl}/?server=${encodeURIComponent(receiver.mcpUrl)}`);
    await page.waitForFunction(listShowsAll, TASKS, { timeout: LOAD_TIMEOUT_MS, polling: 100 });
    const loadedAt = await receiver.now();
    console.log(
      `list showed all ${TASKS} ${fixed((loadedAt - createdAt) / 1000, 1)} s after they were created`,
    );

    const targets = workers.workers();
    console.log(
      `workers: ${targets.map((w) => `${w.title || '?'} (${path.basename(w.url)})`).join(', ') || 'none'}`,
    );
    const engines = targets.filter((w) => /engine/i.test(`${w.title} ${w.url}`));

    if (BASELINE_SECONDS > 0) {
      const from = await receiver.now();
      const { used } = await withCpu(() => sleep(BASELINE_SECONDS * 1000));
      const to = await receiver.now();
      const p = await pollsPerSec(receiver, from, to);
      console.log(
        `baseline (no profiler, ${fixed((to - from) / 1000, 1)} s): ${fixed(p.getsPerSec)} tasks/get per s${p.allLive ? '' : ' (some tasks completed inside it)'}`,
      );
      printCpu('no profiler', used, p.getsPerSec * ((to - from) / 1000), (to - from) / 1000);
    }

    let from = 0;
    let to = 0;
    let windowCpu = new Map<string, number>();
    const analyses = await profiled(
      [
        ...(engines.length ? engines : targets).map((w) =>
          workerProfiler(workers, w, `engine Worker (${w.title || path.basename(w.url)})`),
        ),
        pageProfiler(cdp, 'page main thread'),
      ],
      async () => {
        from = await receiver.now();
        windowCpu = (await withCpu(() => sleep(SECONDS * 1000))).used;
        to = await receiver.now();
      },
    );
    const p = await pollsPerSec(receiver, from, to);
    const polls = p.getsPerSec * ((to - from) / 1000);
    console.log(
      `profile window ${fixed((to - from) / 1000, 1)} s: ${fixed(p.getsPerSec)} tasks/get per s at the receiver (${fixed(polls)}), ${p.results} tasks/result${p.allLive ? '; all tasks live throughout' : `; first task completed ${fixed((p.firstCompletion - from) / 1000, 1)} s into the window`}`,
    );
    printCpu('profilers on', windowCpu, polls, (to - from) / 1000);
    for (const a of analyses) printAnalysis(a, polls);
    if (TRACE_SECONDS > 0) {
      const { events, value: span } = await traceWindow(cdp, async () => {
        const start = await receiver.now();
        await sleep(TRACE_SECONDS * 1000);
        return { start, end: await receiver.now() };
      });
      const t = await pollsPerSec(receiver, span.start, span.end);
      printTrace(events, t.getsPerSec * ((span.end - span.start) / 1000), (span.end - span.start) / 1000);
    }
  } finally {
    await context.close();
  }
}

/** `node --import tsx bench/profile-engine.ts a.cpuprofile …`: analyse saved profiles (BENCH_PROFILE_POLLS: polls in their window). */
const saved = process.argv.slice(2).filter((arg) => arg.endsWith('.cpuprofile'));
if (saved.length > 0) {
  for (const file of saved)
    printAnalysis(
      analyse(path.basename(file), JSON.parse(readFileSync(file, 'utf8')) as Profile),
      positive(process.env.BENCH_PROFILE_POLLS, 0),
    );
  process.exit(0);
}

const receiver = await spawnLiveReceiver();
let app: Awaited<ReturnType<typeof startApp>> | undefined;
let browser: Browser | undefined;
try {
  app = await startApp({ port: 0 });
  browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
  await main(receiver, browser, app.url);
} finally {
  await browser?.close().catch(() => undefined);
  await app?.close().catch(() => undefined);
  await receiver.stop();
}
