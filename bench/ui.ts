/**
 * npm run bench:ui: how the dashboard renders with many live tasks, in Debian Chromium against the npm start
 * server (built first). Creates N slow_job tasks through the UI, then measures frames and long tasks for 5 s
 * while all of them poll once a second. Prints figures; asserts nothing.
 */
import { chromium } from '@playwright/test';
import { startApp } from '../src/devserver/start';
import { CHROMIUM_ARGS, chromiumPath } from '../test/helpers/chromium';

const N = Number(process.env.BENCH_UI_TASKS ?? 300);
const app = await startApp({ port: 0 });
const browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  // tsx names functions with an __name helper, which functions sent to the page bring along.
  await page.addInitScript('window.__name = (f) => f');
  await page.goto(`${app.url}/`);
  const started = Date.now();
  for (let i = 0; i < N; i++) {
    await page.getByTestId('tool-slow_job').click();
    await page.locator('#arg-durationMs').fill('300000');
    await page.locator('#arg-steps').fill('100');
    await page.getByRole('button', { name: 'Run as task' }).click();
  }
  await page.waitForFunction((n) => document.body.textContent?.includes(`all ${n}`), N, { timeout: 120_000 });
  console.log(`created ${N} tasks through the UI in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // The run form in the main pane: what renders is the list, the header and the drawer.
  await page.getByTestId('tool-echo').click();
  const measure = () =>
    page.evaluate(
      () =>
        new Promise<{ frames: number[]; longTasks: number; longTaskMs: number }>((resolve) => {
          const frames: number[] = [];
          let longTasks = 0;
          let longTaskMs = 0;
          const observer = new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) {
              longTasks++;
              longTaskMs += entry.duration;
            }
          });
          observer.observe({ type: 'longtask' });
          let last = performance.now();
          const end = last + 5000;
          const step = (t: number) => {
            frames.push(t - last);
            last = t;
            if (t < end) requestAnimationFrame(step);
            else {
              observer.disconnect();
              resolve({ frames, longTasks, longTaskMs });
            }
          };
          requestAnimationFrame(step);
        }),
    );
  const report = (label: string, r: { frames: number[]; longTasks: number; longTaskMs: number }) => {
    const sorted = [...r.frames].sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.floor(p * (sorted.length - 1))]!.toFixed(1);
    console.log(
      `${label}: ${sorted.length} frames in 5 s; frame ms median ${q(0.5)}, p95 ${q(0.95)}, max ${q(1)}; long tasks ${r.longTasks} (${r.longTaskMs.toFixed(0)} ms)`,
    );
  };
  report(`${N} live tasks, list idle`, await measure());
  const scrolling = measure();
  const list = page.getByTestId('task-list');
  for (let i = 0; i < 20; i++) {
    await list.evaluate((el) => el.scrollBy(0, 600));
    await page.waitForTimeout(200);
  }
  report(`${N} live tasks, list scrolling`, await scrolling);
} finally {
  await browser.close();
  await app.close();
}
