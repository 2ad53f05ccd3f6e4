import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from '../test/helpers/chromium';
import { repoRoot } from '../test/helpers/stdio';
import { startCli, type RunningCli } from '../test/helpers/taskscope-cli';

/**
 * Takes the README's screenshot, docs/images/taskscope.png (`npm run screenshot`, which builds the page first):
 * Taskscope from the sources on a free port with its embedded demo receiver, Debian's Chromium (never a downloaded
 * browser) at 1440×900, a few demo tasks run from the page, and the picture taken while the last one works, so its
 * timeline and live TTL countdown show. Everything it starts is stopped, also when a step fails.
 */

const OUT = join(repoRoot, 'docs/images/taskscope.png');
const STEP_TIMEOUT = 30_000;

/** Runs `tool` from its form with `args` and waits until the page shows its detail. */
async function runTask(page: Page, tool: string, args: Record<string, string>): Promise<void> {
  await page.getByTestId(`tool-${tool}`).click();
  const form = page.getByTestId('run-form');
  for (const [name, value] of Object.entries(args)) await form.locator(`#arg-${name}`).fill(value);
  await form.getByRole('button', { name: 'Run as task' }).click();
  await page.getByTestId('task-detail').getByTestId('task-id').waitFor({ timeout: STEP_TIMEOUT });
}

/** Waits until the first element `selector` finds reads `pattern`. */
async function textMatches(page: Page, selector: string, pattern: RegExp): Promise<void> {
  await page.waitForFunction(
    ({ selector, source }) => new RegExp(source).test(document.querySelector(selector)?.textContent ?? ''),
    { selector, source: pattern.source },
    { timeout: STEP_TIMEOUT },
  );
}

async function take(taskscope: RunningCli, browser: Browser): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  page.setDefaultTimeout(STEP_TIMEOUT);
  await page.goto(`${taskscope.url}/`);
  await textMatches(page, '[data-testid="connection-status"]', /^Connected$/);

  // A finished task and a failed one in the list, then the one on screen, mid-run.
  await runTask(page, 'slow_job', {
    durationMs: '1500',
    steps: '3',
    pollIntervalMs: '500',
    label: 'warm-up',
  });
  await runTask(page, 'flaky_job', { failAfterMs: '1000' });
  await runTask(page, 'slow_job', {
    durationMs: '60000',
    steps: '12',
    pollIntervalMs: '1000',
    ttlMs: '600000',
    label: 'nightly export',
  });
  const detail = page.getByTestId('task-detail');
  await detail.getByTestId('timeline').locator('[data-status="working"]').waitFor();
  await textMatches(page, '[data-testid="task-detail"] [data-testid="status-message"]', /Step 3\/12/);
  await textMatches(page, '[data-testid="task-detail"] [data-testid="ttl-countdown"]', /\d+ min/);
  await mkdir(dirname(OUT), { recursive: true });
  await page.screenshot({ path: OUT });
}

const taskscope = await startCli(['--no-open', '--port', '0'], { env: { PORT: '' } });
let browser: Browser | undefined;
try {
  browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
  await take(taskscope, browser);
  console.log(`Wrote ${OUT}`);
} finally {
  await browser?.close();
  await taskscope.stop();
}
