/**
 * npm run bench:ui: polling discipline and page health of the dashboard with N live tasks, in Debian Chromium,
 * counted from the receiver's side. Prints figures; asserts nothing.
 *
 * A receiver in a child process (live-receiver.ts) holds N tasks created on it (not through the UI), each
 * completing 30–90 s after the size's run starts, pollInterval 1,000 ms, and logs every tasks/get and
 * tasks/result. First, in the same run, a plain fetch loop in a Chromium page (five in flight, ~5 s, against
 * the receiver's trivial /bare endpoint) gives the page's bare fetch capacity, measured again after the sizes
 * (the larger of the two is the one polls are held against: a busy machine lowers either). Then for each N a fresh browser
 * context opens the dashboard (`npm start`'s server, built first) at `?server=<receiver>`; once the list shows
 * all N, the window starts (BENCH_UI_WINDOW_MS, 100 s by default, so every task completes). Inside it, while
 * every task is still live: frames and long tasks idle, scrolling the list, and with a task detail open;
 * click-to-detail times; the JS heap of the page and its workers; the machine's CPU by process (ui-machine.ts)
 * and CPU profiles (CDP) of the page and the Worker
 * over a window, read as milliseconds of CPU per poll the receiver counted, with the traffic drawer closed and
 * then open. The receiver pushes notifications/tasks/status at every completion and lists 200 tasks a page;
 * COMPLETIONS_AT_MS after the tasks were made, while completions pour in, the page is measured and clicked
 * again. Then the receiver's log gives poll gaps, poll rates, result latency and polls after terminal.
 *
 * Env: BENCH_UI_SIZES (300,1000), BENCH_UI_WINDOW_MS (100000), BENCH_UI_PHASE_MS (5000 per page-health phase),
 * BENCH_UI_PROFILE_MS (8000 per CPU profile), BENCH_UI_TRACE (set: a Chrome trace of each CPU window too, ui-trace.ts),
 * BENCH_UI_PROFILE_DIR (ui-profile.ts; the page's profile of the completions phase too), BENCH_UI_STREAM (off: the receiver refuses the notification stream).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type CDPSession, type Page } from '@playwright/test';
import { startApp } from '../src/devserver/start';
import { CHROMIUM_ARGS, chromiumPath } from '../test/helpers/chromium';
import { POLL_INTERVAL_MS, spawnLiveReceiver, type LiveReceiverProcess } from './live-receiver';
import { analyse, quantile } from './ui-stats';
import {
  bareFetchLoop,
  clickToDetail,
  listShowsAll,
  measurePhase,
  openDrawerTimed,
  type PhaseResult,
} from './ui-page';
import { watchWorkers, type HeapReading, type HeapWatcher } from './ui-heap';
import { profileWindow, readProfile, type CpuProfile, type ProfileFigures } from './ui-profile';
import { TRACE_ON, startTrace, stopTrace, type TraceFigures } from './ui-trace';
import { machineWindow, type MachineFigures } from './ui-machine';

const positive = (raw: string | undefined, fallback: number) => {
  const value = Number(raw);
  return raw !== undefined && raw !== '' && Number.isFinite(value) && value > 0 ? value : fallback;
};
const SIZES = (process.env.BENCH_UI_SIZES ?? process.env.BENCH_UI_TASKS ?? '300,1000')
  .split(',')
  .map((s) => Math.floor(Number(s)))
  .filter((n) => Number.isFinite(n) && n > 0);
const WINDOW_MS = positive(process.env.BENCH_UI_WINDOW_MS, 100_000);
const PHASE_MS = positive(process.env.BENCH_UI_PHASE_MS, 5000);
const PROFILE_MS = positive(process.env.BENCH_UI_PROFILE_MS, 8000);
const PROFILE_DIR = process.env.BENCH_UI_PROFILE_DIR;
/** Tasks complete 30–90 s after they are made: at 75 s a tenth of them finish within the next ~10 s. */
const COMPLETIONS_AT_MS = 75_000;
const CAPACITY_MS = 5000;
const IN_FLIGHT = 5;
const CLICKS = 5;
const LOAD_TIMEOUT_MS = 120_000;
const VIEWPORT = { width: 1400, height: 860 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const fixed = (value: number | null | undefined, digits = 0) =>
  value === null || value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
const mb = (bytes: number) => fixed(bytes / 1024 / 1024, 1);
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

async function newBenchPage(browser: Browser) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  // tsx names functions with an __name helper, which functions sent to the page bring along.
  await page.addInitScript('window.__name = (f) => f');
  return { context, page };
}

/** Requests a second the page gets through to a trivial loopback server, counted on the receiver. */
async function bareCapacity(browser: Browser, receiver: LiveReceiverProcess) {
  const { context, page } = await newBenchPage(browser);
  try {
    await page.goto(receiver.hostUrl);
    // Warm up: the CORS preflight and the connections, so the window sees only the loop.
    await page.evaluate(bareFetchLoop, { url: receiver.bareUrl, ms: 500, inFlight: IN_FLIGHT });
    const from = await receiver.now();
    const inPage = await page.evaluate(bareFetchLoop, {
      url: receiver.bareUrl,
      ms: CAPACITY_MS,
      inFlight: IN_FLIGHT,
    });
    const to = await receiver.now();
    // Then profiled, apart from the count: the CPU a plain fetch costs is the floor under a poll's.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.start');
    const profiled = await page.evaluate(bareFetchLoop, {
      url: receiver.bareUrl,
      ms: 3000,
      inFlight: IN_FLIGHT,
    });
    const profile = readProfile((await cdp.send('Profiler.stop')).profile as unknown as CpuProfile, 50);
    const arrived = await receiver.bareCount(from, to);
    return {
      perSec: arrived / ((to - from) / 1000),
      pagePerSec: inPage.done / (inPage.ms / 1000),
      failed: inPage.failed,
      cpuPerFetchMs: profiled.done > 0 ? profile.busyMs / profiled.done : NaN,
      fetchSelfPerFetchMs:
        profiled.done > 0 ? (profile.top.find(([name]) => name === 'fetch')?.[1] ?? 0) / profiled.done : NaN,
    };
  } finally {
    await context.close();
  }
}

interface PhaseFigures {
  label: string;
  result: PhaseResult;
}

const phase = (page: Page, label: string, scrollSelector?: string): Promise<PhaseFigures> =>
  page
    .evaluate(measurePhase, { ms: PHASE_MS, scrollSelector, scrollStep: 40 })
    .then((result) => ({ label, result }));

async function runSize(browser: Browser, receiver: LiveReceiverProcess, appUrl: string, n: number) {
  const { context, page } = await newBenchPage(browser);
  try {
    const cdp = await context.newCDPSession(page);
    const heap = await watchWorkers(cdp);
    const createdAt = await receiver.reset(n);
    await page.goto(`${appUrl}/?server=${encodeURIComponent(receiver.mcpUrl)}`);
    await page.waitForFunction(listShowsAll, n, { timeout: LOAD_TIMEOUT_MS, polling: 100 });
    const from = await receiver.now();
    const windowEndsAt = performance.now() + WINDOW_MS;

    const phases: PhaseFigures[] = [];
    const cpu: CpuPerPoll[] = [];
    phases.push(await phase(page, 'idle'));
    cpu.push(await cpuPerPoll('drawer closed', n, cdp, heap, receiver, browser, page));
    phases.push(await phase(page, 'scrolling', '[data-testid=task-list]'));
    await page.evaluate(() => document.querySelector('[data-testid=task-list]')?.scrollTo({ top: 0 }));
    const clicks = await page.evaluate(clickToDetail, { count: CLICKS, timeoutMs: 5000 });
    phases.push(await phase(page, 'detail open'));
    await setDrawer(page, true);
    phases.push(await phase(page, 'drawer open'));
    cpu.push(await cpuPerPoll('drawer open', n, cdp, heap, receiver, browser, page));
    await setDrawer(page, false);
    const heapLive = await heap.read({ gc: true });
    const heapLiveAt = await receiver.now();

    // While completions pour in (each pushed, then its result fetched), measure again and click again.
    const completionsFrom = createdAt + COMPLETIONS_AT_MS;
    await sleep(completionsFrom - (await receiver.now()));
    const busyAt = await receiver.now();
    if (TRACE_ON) await startTrace(browser, page);
    // Profiled too when profiles are kept: the long tasks of this phase are the hardest to place.
    if (PROFILE_DIR) await cdp.send('Profiler.start');
    const [busyPhase, busyClicks] = await Promise.all([
      phase(page, 'completions'),
      page.evaluate(clickToDetail, { count: CLICKS, timeoutMs: 5000 }),
    ]);
    if (PROFILE_DIR) {
      const { profile } = await cdp.send('Profiler.stop');
      writeFileSync(path.join(PROFILE_DIR, `${n}-completions-page.cpuprofile`), JSON.stringify(profile));
    }
    const busyTrace = TRACE_ON ? await stopTrace(browser, `${n} completions`) : undefined;
    phases.push(busyPhase);

    // At the window's end the log is at its cap: the drawer opened then (closed since the drawer phase) gets the
    // whole kept log in its first batch, the heaviest it ever gets.
    await sleep(windowEndsAt - performance.now() - 2000);
    const drawerAtCap = await page.evaluate(openDrawerTimed, { toggle: drawerToggle });
    await sleep(windowEndsAt - performance.now());
    const to = await receiver.now();
    const heapEnd = await heap.read({ gc: true });
    const log = await receiver.log();
    return {
      n,
      loadMs: from - createdAt,
      windowMs: to - from,
      healthDoneAfterMs: heapLiveAt - from,
      firstCompletionAfterMs: Math.min(...log.completesAt) - from,
      phases,
      clicks,
      busyClicks,
      drawerAtCap,
      busyAfterMs: busyAt - createdAt,
      busyTrace,
      cpu,
      heapLive,
      heapEnd,
      workerUrls: heap.workerUrls(),
      polls: analyse(log, from, to),
      preflights: log.preflights,
      otherRequests: log.otherRequests,
      pushesSent: log.pushesSent,
    };
  } finally {
    await context.close();
  }
}

type SizeFigures = Awaited<ReturnType<typeof runSize>>;

interface CpuPerPoll {
  label: string;
  polls: number;
  page: ProfileFigures;
  workers: ProfileFigures[];
  /** The machine's CPU by process over the same window. */
  machine: MachineFigures;
  /** The main thread's heaviest trace events by self time, ms, and its long tasks (BENCH_UI_TRACE). */
  trace: TraceFigures | undefined;
}

async function cpuPerPoll(
  label: string,
  /** the size, in the names of the files kept */
  n: number,
  cdp: CDPSession,
  heap: HeapWatcher,
  receiver: LiveReceiverProcess,
  browser: Browser,
  page: Page,
): Promise<CpuPerPoll> {
  if (TRACE_ON) await startTrace(browser, page);
  const from = await receiver.now();
  const machineEnd = machineWindow(receiver.pid);
  const figures = await profileWindow(cdp, heap, PROFILE_MS, `${n} ${label}`);
  const machine = machineEnd();
  const to = await receiver.now();
  const trace = TRACE_ON ? await stopTrace(browser, `${n} ${label}`) : undefined;
  return { label, polls: await receiver.pollCount(from, to), trace, machine, ...figures };
}

const drawerToggle = '[data-testid=traffic-drawer] > header > button';
async function setDrawer(page: Page, open: boolean) {
  const drawer = page.locator('[data-testid=traffic-drawer]');
  if ((await drawer.getAttribute('data-open')) !== String(open)) await page.click(drawerToggle);
  await page.waitForSelector(`[data-testid=traffic-drawer][data-open=${open}]`);
}

function clickText(c: { frame: number[]; dom: number[]; complete: number[]; failed: number }) {
  const q = (values: number[], at: number) => fixed(quantile(sorted(values), at), 1);
  return `to the DOM median ${q(c.dom, 0.5)} ms (max ${q(c.dom, 1)}), whole detail median ${q(c.complete, 0.5)} ms (max ${q(c.complete, 1)}), its next frame median ${q(c.frame, 0.5)} ms (max ${q(c.frame, 1)})  (${c.frame.length} clicks${c.failed ? `, ${c.failed} failed` : ''})`;
}

function longText(durations: number[]) {
  return durations.length === 0
    ? 'no long task'
    : `${durations.length} long task${durations.length === 1 ? '' : 's'}, longest ${fixed(Math.max(...durations))} ms, ${fixed(sum(durations))} ms in all`;
}

function heapText(h: HeapReading) {
  const workers = h.workers.length === 0 ? 0 : sum(h.workers);
  return `page ${mb(h.page)} + worker ${mb(workers)} (${h.workers.length}) = ${mb(h.page + workers)} MB`;
}

function print(f: SizeFigures, capacity: number) {
  const p = f.polls;
  const g = p.gapRatios;
  const lat = p.resultLatencies;
  const share = p.pollsPerSecAllLive === null ? null : (100 * p.pollsPerSecAllLive) / capacity;
  const rows: [string, string][] = [
    [
      'poll gap ÷ pollInterval',
      `min ${fixed(quantile(g, 0), 2)} · median ${fixed(quantile(g, 0.5), 2)} · p95 ${fixed(quantile(g, 0.95), 2)} · max ${fixed(quantile(g, 1), 2)}  (${g.length} gaps; ${p.neverPolled} live tasks never polled)`,
    ],
    [
      'the same, while all live',
      `median ${fixed(quantile(p.gapRatiosAllLive, 0.5), 2)} · p95 ${fixed(quantile(p.gapRatiosAllLive, 0.95), 2)} (${fixed(quantile(p.gapRatiosAllLive, 0.95) / quantile(p.gapRatiosAllLive, 0.5), 2)}×; ${p.gapRatiosAllLive.length} gaps)`,
    ],
    [
      'gap ÷ median gap of its 2 s',
      `p95 ${fixed(quantile(p.gapSpread, 0.95), 2)} · p99 ${fixed(quantile(p.gapSpread, 0.99), 2)} · max ${fixed(quantile(p.gapSpread, 1), 2)}  (fairness at each moment's load)`,
    ],
    [
      'polls/s',
      `${fixed(p.pollsPerSecAllLive)} while all ${f.n} live (${fixed(p.allLiveSeconds, 1)} s; want ${fixed((f.n * 1000) / POLL_INTERVAL_MS)}) = ${fixed(share)} % of bare capacity · ${fixed(p.pollsPerSecWindow)} over the window`,
    ],
    [
      'result latency after told done',
      `p50 ${fixed(quantile(lat, 0.5))} ms · p95 ${fixed(quantile(lat, 0.95))} ms · max ${fixed(quantile(lat, 1))} ms  (${lat.length} results; ${p.resultsMissing} missing; ${p.completionsUnseen} completions unseen)`,
    ],
    [
      'polls after terminal',
      `${p.pollsAfterTerminal}  (${p.tasksPolledAfterTerminal} tasks = ${fixed((100 * p.tasksPolledAfterTerminal) / f.n, 1)} % of tasks)`,
    ],
    ...f.phases.map(({ label, result }): [string, string] => {
      const frames = sorted(result.frames);
      const long = sorted(result.longTasks);
      return [
        `${label}: long tasks · frame p95`,
        `${long.length} long tasks (p95 ${fixed(quantile(long, 0.95))} ms, ${fixed(sum(long))} ms in all) · frame p95 ${fixed(quantile(frames, 0.95), 1)} ms, median ${fixed(quantile(frames, 0.5), 1)} ms (${frames.length} frames${label === 'scrolling' ? `, ${fixed(result.scrolled)} px` : ''})`,
      ];
    }),
    ['click → detail', clickText(f.clicks)],
    ['first open of a task: long tasks', longText(f.clicks.longTasks[0] ?? [])],
    [
      `drawer opened, ${f.drawerAtCap.messages} messages held`,
      `${f.drawerAtCap.rowsMs === null ? 'no rows shown' : `rows shown in ${fixed(f.drawerAtCap.rowsMs)} ms`}; ${longText(f.drawerAtCap.longTasks)}`,
    ],
    [`click → detail, ${fixed(f.busyAfterMs / 1000)} s in`, clickText(f.busyClicks)],
    ...f.cpu.map(({ label, polls, page, workers }): [string, string] => {
      const worker = workers.reduce((total, w) => total + w.busyMs, 0);
      const per = (ms: number) => (polls > 0 ? fixed(ms / polls, 2) : '–');
      return [
        `CPU per poll, ${label}`,
        `page ${per(page.busyMs)} ms + worker ${per(worker)} ms  (${polls} polls in ${fixed(page.windowMs / 1000, 1)} s; busy: page ${fixed((100 * page.busyMs) / page.windowMs)} %, worker ${fixed((100 * worker) / page.windowMs)} %)`,
      ];
    }),
    ['JS heap, live (after GC)', heapText(f.heapLive)],
    ['JS heap, end (after GC)', heapText(f.heapEnd)],
  ];
  console.log(
    `\nN = ${f.n}: list showed all ${f.n} ${fixed(f.loadMs / 1000, 1)} s after they were created; window ${fixed(f.windowMs / 1000, 1)} s from then; page-health figures taken in its first ${fixed(f.healthDoneAfterMs / 1000, 1)} s (first completion at ${fixed(f.firstCompletionAfterMs / 1000, 1)} s)`,
  );
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
  for (const { label, page, workers } of f.cpu) {
    const top = (figures: ProfileFigures) =>
      figures.top
        .slice(0, 6)
        .map(([name, ms]) => `${name} ${fixed(ms)}`)
        .join(' · ');
    console.log(`  heaviest self time (ms), ${label}: page: ${top(page)}`);
    for (const w of workers) console.log(`    worker: ${top(w)}`);
  }
  for (const { label, machine, polls } of f.cpu) {
    if (machine.groups.length === 0 || polls === 0) continue;
    const groups = machine.groups.map(([name, ms]) => `${name} ${fixed(ms / polls, 2)}`).join(' · ');
    console.log(
      `  machine CPU per poll by process (ms), ${label}: ${groups}  (machine ${fixed(100 * machine.busyShare)} % busy)`,
    );
  }
  const traced = [...f.cpu, { label: 'completions', trace: f.busyTrace }];
  for (const { label, trace } of traced) {
    if (!trace) continue;
    const events = trace.top.map(([name, ms, n]) => `${name} ${fixed(ms)} (${n}×)`).join(' · ');
    console.log(`  main thread by trace event, self time (ms), ${label}: ${events}`);
    for (const long of trace.longTasks) {
      const inside = long.top.map(([name, ms]) => `${name} ${fixed(ms)}`).join(' · ');
      console.log(`    long task of ${fixed(long.ms)} ms: ${inside}`);
    }
  }
  const notes = [
    `${f.polls.unknownTaskRequests} requests for unknown tasks`,
    `${f.preflights} CORS preflights`,
    `${f.pushesSent} status pushes sent`,
    `workers: ${f.workerUrls.map((u) => u.replace(/^.*\//, '')).join(', ') || 'none'}`,
    ...Object.entries(f.otherRequests).map(([method, count]) => `${count} × ${method}`),
  ];
  console.log(`  (${notes.join('; ')})`);
}

const receiver = await spawnLiveReceiver();
let app: Awaited<ReturnType<typeof startApp>> | undefined;
let browser: Browser | undefined;
try {
  app = await startApp({ port: 0 });
  browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
  console.log(
    `bench:ui: Chromium ${browser.version()}; sizes ${SIZES.join(', ')}; window ${WINDOW_MS / 1000} s; pollInterval ${POLL_INTERVAL_MS} ms; page-health phases ${PHASE_MS / 1000} s`,
  );
  const capacity = await bareCapacity(browser, receiver);
  console.log(
    `bare fetch capacity (plain fetch loop in a page, ${IN_FLIGHT} in flight, ${CAPACITY_MS / 1000} s): ${fixed(capacity.perSec)} requests/s at the receiver (${fixed(capacity.pagePerSec)}/s answered in the page${capacity.failed ? `, ${capacity.failed} failed` : ''}); its CPU per fetch ${fixed(capacity.cpuPerFetchMs, 2)} ms, of which fetch itself ${fixed(capacity.fetchSelfPerFetchMs, 2)} ms`,
  );
  const sizes: SizeFigures[] = [];
  for (const n of SIZES) sizes.push(await runSize(browser, receiver, app.url, n));
  // Measured again at the end: the larger of the two is the capacity the polls are held against.
  const again = await bareCapacity(browser, receiver);
  console.log(
    `bare fetch capacity again, after the sizes: ${fixed(again.perSec)} requests/s; the polls/s below are held against the larger, ${fixed(Math.max(capacity.perSec, again.perSec))}`,
  );
  for (const figures of sizes) print(figures, Math.max(capacity.perSec, again.perSec));
} finally {
  await browser?.close().catch(() => undefined);
  await app?.close().catch(() => undefined);
  await receiver.stop();
}
