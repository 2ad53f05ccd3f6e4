import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { connect, expect, test } from './fixtures';

/**
 * The receiver report card against the demo receiver `npm start` mounts at /demo/mcp: opened by
 * ?report=1, the active check run with its confirmation and stopped on a second run, the Markdown export.
 * Every fault's rule is held to its verdict by test/integration/fault-matrix.test.ts; here one fault is seen
 * on the card and its first offence opened, as a server author would. The card's drawing is checked in
 * src/report/ReportCard.test.tsx (with the check off during a replay).
 */

test.describe.configure({ timeout: 90_000 });

const card = (page: Page) => page.getByTestId('report-card');

async function runCheck(page: Page, tool = 'slow_job') {
  await card(page).getByTestId('check-receiver').click();
  const confirm = page.getByTestId('check-confirm');
  await expect(confirm).toBeVisible();
  // The dialog says what it does to the receiver: it creates tasks there, with which tool, at which URL.
  await expect(confirm).toContainText('creates tasks on that server');
  await expect(confirm).toContainText('/demo/mcp');
  // What it leaves behind and how long it may take, as the check really does it.
  await expect(confirm.getByTestId('check-cleanup')).toContainText(
    'cancels the tasks it started that still run',
  );
  await expect(confirm.getByTestId('check-limits')).toContainText('whole check stops itself after 180 s');
  await confirm.getByTestId('check-tool').selectOption(tool);
  await confirm.getByTestId('confirm-check').click();
  await expect(confirm).toBeHidden();
}

/**
 * Holds the demo receiver's answers to tasks/list (a request interceptor) until the function returned is
 * called: the check's tasks/list step waits for them, so the check is running for as long as the test needs.
 */
async function holdTaskLists(page: Page): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/demo/mcp', async (route) => {
    if (route.request().postData()?.includes('"method":"tasks/list"')) await released;
    // Stop aborts the request the check was waiting on: nothing is left to hand on then.
    await route.continue().catch(() => undefined);
  });
  return async () => {
    release();
    await page.unroute('**/demo/mcp');
  };
}

test('?report=1 opens the card; the check runs after confirmation, stops on request, and exports', async ({
  page,
}) => {
  await connect(page, '/demo/mcp', { query: 'report=1' });
  await expect(card(page)).toBeVisible();
  await expect(card(page).getByTestId('report-receiver')).toContainText('/demo/mcp');
  await expect(card(page).getByTestId('report-rule').first()).toBeVisible();

  // A full run: progress while it runs (it cannot end before its tasks/list is answered), then finished,
  // with the check's findings on the card.
  let release = await holdTaskLists(page);
  await runCheck(page);
  const status = card(page).getByTestId('check-status');
  await expect(status).toContainText('Running');
  await expect(card(page).getByTestId('check-progress')).toBeVisible();
  await release();
  await expect(status).toContainText('Finished', { timeout: 30_000 });
  await expect(card(page).getByTestId('check-progress')).toHaveAttribute('aria-valuenow', '100');
  const cancelRule = card(page).locator('[data-rule="terminal-cancel-refused"]');
  await expect(cancelRule).toHaveAttribute('data-verdict', 'pass');
  await expect(cancelRule).toContainText('active');
  // The well-behaved demo receiver has no fail, observed or probed.
  await expect(card(page).getByTestId('report-count-fail')).toContainText('0');
  await expect(card(page).locator('[data-testid="report-rule"][data-verdict="fail"]')).toHaveCount(0);

  // A second run, stopped (again held, so it is still running when Stop is pressed): what was left is
  // marked stopped, and the card says so.
  release = await holdTaskLists(page);
  await runCheck(page);
  await expect(status).toContainText('Running');
  await card(page).getByTestId('stop-check').click();
  await expect(status).toContainText('Stopped after', { timeout: 15_000 });
  await expect(card(page).locator('[data-testid="check-step"][data-state="stopped"]').first()).toBeVisible();
  await release();

  // Markdown for an issue tracker: the receiver, the counts and the rules table.
  const downloading = page.waitForEvent('download');
  await card(page).getByTestId('download-report-markdown').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^taskscope-report-.*\.md$/);
  const markdown = await readFile((await download.path())!, 'utf8');
  expect(markdown).toContain('## Taskscope report card: taskscope-demo');
  expect(markdown).toContain(
    '| Rule | Verdict | Strength | Observations | Reason | First offence | Source | Spec |',
  );
  expect(markdown).toMatch(/\| Cancel of an ended task refused with -32602 \| pass \| MUST \|/);
  expect(markdown).toContain('- Active check: stopped');

  // The same Markdown goes to the clipboard.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await card(page).getByTestId('copy-report-markdown').click();
  // The write is the page's, a moment after the click: read until it has landed.
  await expect
    .poll(() => page.evaluate(() => navigator.clipboard.readText()))
    .toContain('| Rule | Verdict |');

  // Escape closes it through the app's keymap, and the address forgets ?report=1.
  await page.keyboard.press('Escape');
  await expect(card(page)).toBeHidden();
  expect(new URL(page.url()).searchParams.get('report')).toBeNull();
  await page.getByTestId('open-report').click();
  await expect(card(page)).toBeVisible();
});

test('a fault on the card: terminal-changes fails status-transitions, and its first offence opens the task there', async ({
  page,
}) => {
  await connect(page, '/demo/mcp?faults=terminal-changes', { query: 'report=1' });
  await card(page).getByTestId('check-receiver').click();
  const confirm = page.getByTestId('check-confirm');
  await confirm.getByTestId('check-tool').selectOption('job');
  await confirm.getByTestId('check-args').fill('{"durationMs":1000}');
  await confirm.getByTestId('confirm-check').click();
  await expect(card(page).getByTestId('check-status')).toContainText('Finished', { timeout: 60_000 });
  // The check read its tasks again 3 s after their end: one of them said working.
  const rule = card(page).locator('[data-rule="status-transitions"]');
  await expect(rule).toHaveAttribute('data-verdict', 'fail');
  const link = rule.getByTestId('offence-link');
  const taskId = /fault-\d+-[0-9a-f]+/.exec((await link.textContent()) ?? '')?.[0];
  expect(taskId).toBeDefined();
  await link.click();
  await expect(card(page)).toBeHidden();
  const detail = page.getByTestId('task-detail');
  await expect(detail).toContainText(taskId!);
  // Opened at that moment: the observation that read working after the end is the one marked.
  const marked = detail.locator('[data-testid="observations"] tr[data-focused]');
  await expect(marked).toContainText('working');
  // The task's own timeline says the check started it.
  await expect(detail.getByTestId('started-by-check')).toBeVisible();
});
