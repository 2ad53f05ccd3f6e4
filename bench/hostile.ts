/**
 * npm run bench:hostile: how the dashboard copes with each case of the hostile receiver
 * (test/servers/hostile/receiver.ts), in Debian Chromium. Prints figures; asserts nothing.
 *
 * The hostile receiver and the app server (`npm start`'s, serving the build in dist/) run in this process. For
 * each case, a fresh browser context opens `${app}/?server=<case URL>` and stays BENCH_HOSTILE_SECONDS (10).
 * During the window: a trivial `page.evaluate(() => 1)` is timed PROBES times, 1 s after the previous one ends
 * (a frozen main thread shows as a long or missing answer); then the first task row is clicked, to open its
 * detail (deep results, huge status messages and input forms render there), and timed once more. At the end:
 * the requests the receiver counted, one more probe with a longer timeout (has a frozen page come back?), the JS heap of the page and of its dedicated workers (after GC, over CDP: ui-heap.ts),
 * whether #root is blank, and the first text of the task detail and of the header's warnings.
 *
 * Env: BENCH_HOSTILE_SECONDS (10), BENCH_HOSTILE_CASES (comma-separated case names; all by default).
 * Every wait is bounded; the whole run is bounded too (it exits 2 past its budget).
 */
import { chromium, type Browser, type Page } from '@playwright/test';
import { startApp } from '../src/devserver/start';
import {
  CASE_NAMES,
  startHostileReceiver,
  type CaseCounts,
  type CaseName,
  type HostileReceiver,
} from '../test/servers/hostile/receiver';
import { CHROMIUM_ARGS, chromiumPath } from '../test/helpers/chromium';
import { watchWorkers, type HeapReading } from './ui-heap';

const positive = (raw: string | undefined, fallback: number) => {
  const value = Number(raw);
  return raw !== undefined && raw !== '' && Number.isFinite(value) && value > 0 ? value : fallback;
};
const WINDOW_MS = positive(process.env.BENCH_HOSTILE_SECONDS, 10) * 1000;
const CASES: CaseName[] = (() => {
  const asked = (process.env.BENCH_HOSTILE_CASES ?? '').split(',').filter(Boolean);
  const unknown = asked.filter((name) => !(CASE_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_HOSTILE_CASES: no case ${unknown.join(', ')}`);
  return asked.length > 0 ? (asked as CaseName[]) : [...CASE_NAMES];
})();
const PROBES = 5;
const PROBE_SPACING_MS = 1000;
/** A probe or page read not answered in this long counts as frozen. */
const PROBE_TIMEOUT_MS = 5000;
const STEP_TIMEOUT_MS = 15_000;
const VIEWPORT = { width: 1400, height: 860 };
/** Per case: the window plus every bounded step after it; the whole run: every case plus start-up. */
const CASE_BUDGET_MS = WINDOW_MS + PROBE_TIMEOUT_MS * (PROBES + 2) + STEP_TIMEOUT_MS * 5;
const RUN_BUDGET_MS = CASES.length * (CASE_BUDGET_MS + 10_000) + 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const TIMED_OUT = Symbol('timed out');
/** The value, or TIMED_OUT when it takes longer than `ms`; a late rejection is swallowed. */
function within<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
const fixed = (value: number | null | undefined, digits = 0) =>
  value === null || value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
const mb = (bytes: number) => fixed(bytes / 1024 / 1024, 1);
const oneLine = (text: string, max: number) => text.replace(/\s+/g, ' ').trim().slice(0, max);

interface PageState {
  blank: boolean;
  rows: number;
  detail: string;
  warnings: string;
}

/** Sent to the page as source: stands alone. */
function readPage(): PageState {
  const texts = (selector: string) =>
    Array.from(document.querySelectorAll<HTMLElement>(selector))
      .map((el) => (el.innerText || el.textContent || '').slice(0, 2000).replace(/\s+/g, ' ').trim())
      .filter(Boolean)
      .join(' | ');
  const root = document.querySelector('#root');
  return {
    blank: !root || (root.textContent ?? '').trim() === '',
    rows: document.querySelectorAll('[data-testid=task-row]').length,
    detail: texts('[data-testid=task-detail]').slice(0, 200),
    warnings: texts(
      '[data-testid=connection-status], [data-testid=polling-saturated], header [role=alert], header [role=status]',
    ).slice(0, 200),
  };
}

/** Sent to the page as source: clicks the first task row, if any. */
function clickFirstRow(): boolean {
  const row = document.querySelector<HTMLElement>('[data-testid=task-row]');
  row?.click();
  return row !== null;
}

/** ms for a trivial evaluate to come back, or Infinity when it did not within the timeout. */
async function probe(page: Page, timeoutMs = PROBE_TIMEOUT_MS): Promise<number> {
  const start = performance.now();
  const answer = await within(
    page.evaluate(() => 1),
    timeoutMs,
  );
  return answer === TIMED_OUT ? Infinity : performance.now() - start;
}

interface CaseFigures {
  name: CaseName;
  navigation: string;
  probes: number[];
  clicked: boolean | 'timed out';
  afterClick: number;
  /** After the window, with a longer timeout: has a frozen page come back? */
  finalProbe: number;
  counts: CaseCounts;
  heap: HeapReading | null;
  workers: number;
  state: PageState | null;
  pageErrors: string[];
  crashed: boolean;
  timedOut: boolean;
}

/** A case's figures before anything is measured (or when it ran out of time). */
function blankFigures(name: CaseName, counts: CaseFigures['counts'], timedOut: boolean): CaseFigures {
  return {
    name,
    navigation: 'ok',
    probes: [],
    clicked: false,
    afterClick: NaN,
    finalProbe: NaN,
    counts,
    heap: null,
    workers: 0,
    state: null,
    pageErrors: [],
    crashed: false,
    timedOut,
  };
}

async function runCase(
  browser: Browser,
  receiver: HostileReceiver,
  appUrl: string,
  name: CaseName,
): Promise<CaseFigures> {
  receiver.reset(name);
  const context = await browser.newContext({ viewport: VIEWPORT });
  const figures = blankFigures(name, receiver.counts(name), false);
  try {
    const page = await context.newPage();
    // tsx names functions with an __name helper, which functions sent to the page bring along.
    await page.addInitScript('window.__name = (f) => f');
    page.on('pageerror', (error) => figures.pageErrors.push(oneLine(error.message, 160)));
    page.on('crash', () => {
      figures.crashed = true;
    });
    const cdp = await context.newCDPSession(page);
    const heap = await watchWorkers(cdp);
    const started = performance.now();
    const windowEnds = started + WINDOW_MS;
    const url = `${appUrl}/?server=${encodeURIComponent(receiver.caseUrl(name))}`;
    const navigated = await within(
      page.goto(url, { waitUntil: 'commit', timeout: STEP_TIMEOUT_MS }).then(
        () => 'ok',
        (error: Error) => `failed: ${oneLine(error.message, 100)}`,
      ),
      STEP_TIMEOUT_MS,
    );
    figures.navigation = navigated === TIMED_OUT ? 'timed out' : navigated;

    while (figures.probes.length < PROBES && performance.now() + PROBE_SPACING_MS < windowEnds) {
      await sleep(PROBE_SPACING_MS);
      figures.probes.push(await probe(page));
    }
    const clicked = await within(page.evaluate(clickFirstRow), PROBE_TIMEOUT_MS);
    figures.clicked = clicked === TIMED_OUT ? 'timed out' : clicked;
    await sleep(Math.min(PROBE_SPACING_MS, windowEnds - performance.now()));
    figures.afterClick = await probe(page);
    await sleep(windowEnds - performance.now());

    figures.counts = receiver.counts(name);
    figures.finalProbe = await probe(page, STEP_TIMEOUT_MS);
    const state = await within(page.evaluate(readPage), PROBE_TIMEOUT_MS);
    figures.state = state === TIMED_OUT ? null : state;
    const reading = await within(heap.read({ gc: true }), STEP_TIMEOUT_MS);
    figures.heap = reading === TIMED_OUT ? null : reading;
    figures.workers = heap.workerUrls().length;
  } finally {
    await within(context.close(), STEP_TIMEOUT_MS);
  }
  return figures;
}

const probeMs = (v: number, timeout: number) =>
  Number.isNaN(v) ? '–' : Number.isFinite(v) ? fixed(v) : `>${timeout}`;

function probeText(probes: number[]): string {
  if (probes.length === 0) return '–';
  const sorted = [...probes].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  const max = sorted[sorted.length - 1]!;
  const missed = probes.filter((p) => !Number.isFinite(p)).length;
  return `${probeMs(median, PROBE_TIMEOUT_MS)}/${probeMs(max, PROBE_TIMEOUT_MS)}${missed ? ` (${missed}✗)` : ''}`;
}

const SHORT: Record<string, string> = {
  initialize: 'init',
  'notifications/initialized': 'n/init',
  'tools/list': 'tools',
  'tasks/get': 'get',
  'tasks/result': 'result',
  'tasks/list': 'list',
  'tasks/cancel': 'cancel',
};
function requestText(c: CaseCounts): string {
  const methods = Object.entries(c.methods)
    .sort((a, b) => b[1] - a[1])
    .map(([method, n]) => `${SHORT[method] ?? method} ${n}`);
  const extra = [
    c.responses ? `responses ${c.responses}` : '',
    c.DELETE ? `DELETE ${c.DELETE}` : '',
    `OPTIONS ${c.OPTIONS}`,
  ].filter(Boolean);
  return [...methods, ...extra].join(', ');
}

function heapText(h: HeapReading | null, workers: number): string {
  if (!h) return 'unread';
  const worker = h.workers.reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
  return `${mb(h.page)} + ${mb(worker)}${workers !== 1 ? ` (${workers}w)` : ''}`;
}

function printTable(all: CaseFigures[]): void {
  const header = [
    'case',
    'GET',
    'receiver requests (POST by method)',
    'eval ms med/max',
    'click→eval',
    'end eval',
    'heap MB page + worker',
    'blank',
    'rows',
  ];
  const rows = all.map((f) => [
    f.name,
    String(f.counts.GET),
    requestText(f.counts),
    probeText(f.probes),
    f.clicked === false
      ? 'no row'
      : `${f.clicked === true ? '' : 'click ✗, '}${probeMs(f.afterClick, PROBE_TIMEOUT_MS)}`,
    probeMs(f.finalProbe, STEP_TIMEOUT_MS),
    heapText(f.heap, f.workers),
    f.crashed ? 'CRASH' : f.state ? (f.state.blank ? 'BLANK' : 'no') : 'unread',
    f.state ? String(f.state.rows) : 'unread',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  console.log(`\n${line(header)}`);
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));

  console.log('\nWhat each page showed at the end (first 200 characters), and anything else noticed:');
  for (const f of all) {
    const notes = [
      f.navigation !== 'ok' ? `navigation ${f.navigation}` : '',
      f.timedOut ? 'case ran past its budget' : '',
      f.state?.warnings ? `header: ${f.state.warnings}` : '',
      f.state?.detail ? `detail: ${f.state.detail}` : '',
      f.counts.notificationsSent ? `${f.counts.notificationsSent} status notifications sent` : '',
      f.counts.elicitationsSent ? `${f.counts.elicitationsSent} elicitations sent` : '',
      Object.keys(f.counts.tasksGet).length > 0
        ? `tasks/get for ${Object.keys(f.counts.tasksGet).length + (f.counts.tasksGetUntracked ? '+' : '')} ids`
        : '',
      f.counts.open ? `${f.counts.open} requests/streams open at the window's end` : '',
      f.pageErrors.length ? `${f.pageErrors.length} page errors, first: ${f.pageErrors[0]}` : '',
    ].filter(Boolean);
    console.log(`  ${f.name}: ${notes.join(' · ') || '(nothing)'}`);
  }
}

const budget = setTimeout(() => {
  console.error(`bench:hostile: over its ${RUN_BUDGET_MS / 1000} s budget; giving up`);
  process.exit(2);
}, RUN_BUDGET_MS);
budget.unref();

const receiver = await startHostileReceiver();
let app: Awaited<ReturnType<typeof startApp>> | undefined;
let browser: Browser | undefined;
try {
  app = await startApp({ port: 0 });
  browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
  console.log(
    `bench:hostile: Chromium ${browser.version()}; ${CASES.length} cases, ${WINDOW_MS / 1000} s each; eval probes: ${PROBES}, ${PROBE_SPACING_MS} ms apart, >${PROBE_TIMEOUT_MS} ms = frozen`,
  );
  const all: CaseFigures[] = [];
  for (const name of CASES) {
    const caseStarted = performance.now();
    const figures = await within(runCase(browser, receiver, app.url, name), CASE_BUDGET_MS);
    const result: CaseFigures =
      figures === TIMED_OUT
        ? { ...blankFigures(name, receiver.counts(name), true), navigation: '?' }
        : figures;
    all.push(result);
    console.log(
      `  ${name}: ${fixed((performance.now() - caseStarted) / 1000, 1)} s; GET ${result.counts.GET}; ${requestText(result.counts)}; eval ${probeText(result.probes)}`,
    );
  }
  printTable(all);
} finally {
  await within(browser?.close() ?? Promise.resolve(), STEP_TIMEOUT_MS);
  await within(app?.close() ?? Promise.resolve(), STEP_TIMEOUT_MS);
  await receiver.close();
  clearTimeout(budget);
}
