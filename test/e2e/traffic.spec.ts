import type { Locator, Page } from '@playwright/test';
import { cancelTask, taskRow, watchAttribute } from '../helpers/task-page';
import { connectionStatus, expect, runTask, test } from './fixtures';

/**
 * The traffic drawer as only a browser shows it: a virtual list that keeps an opened message in place while
 * messages pour in, the keyboard, the drawer's height, the clipboard. What the engine sends the drawer (counts
 * while closed, its window while open) is test/integration/traffic-window.test.ts and
 * src/engine/traffic-window.test.ts; pairing and filters are src/traffic/traffic-store.test.ts.
 */

const drawer = (page: Page) => page.getByTestId('traffic-drawer');
const rows = (page: Page) => drawer(page).getByTestId('traffic-row');

async function openDrawer(page: Page) {
  await page.getByRole('button', { name: /^Traffic/ }).click();
  await expect(drawer(page)).toHaveAttribute('data-open', 'true');
}

/** Messages seen so far, as the drawer's header counts them. */
async function messageCount(page: Page): Promise<number> {
  const text = (await page.getByTestId('traffic-count').textContent()) ?? '';
  return Number(/\((\d+) messages/.exec(text)?.[1] ?? NaN);
}

/**
 * Runs slow_job as a task, polled every 50 ms: about forty messages a second. It works for 10 min, longer than
 * the test: the test waits for the messages it needs, then cancels it.
 */
const runFastPolledJob = async (page: Page) =>
  (await runTask(page, 'slow_job', { durationMs: '600000', steps: '4', pollIntervalMs: '50' })).taskId;

const box = async (locator: Locator) => {
  const b = await locator.boundingBox();
  if (!b) throw new Error('not visible');
  return b;
};

async function clipboard(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

test('an opened message stays where it is while 100 more arrive; every row stays reachable; a task opens the drawer on its own messages, and filters narrow them', async ({
  connected: page,
}) => {
  // 25 s alone (a hundred messages and every row visited), twice that or more on a loaded machine.
  test.setTimeout(120_000);
  await expect(page.getByTestId('tool-list')).toBeVisible();
  await openDrawer(page);
  // Enough rows to scroll, the newest followed at the bottom; then quiet, so the newest stays the newest.
  const first = await runFastPolledJob(page);
  await expect.poll(() => messageCount(page)).toBeGreaterThan(40);
  await cancelTask(page, first);

  // The newest row in view, opened.
  const target = rows(page).last();
  await expect(target).toBeVisible();
  const n = await target.getAttribute('data-n');
  const opened = drawer(page).locator(`[data-testid="traffic-row"][data-n="${n}"]`);
  await opened.getByTestId('traffic-time').click();
  const detail = page.getByTestId('traffic-detail');
  await expect(detail).toBeVisible();
  const rowBefore = await box(opened);
  const detailBefore = await box(detail);
  const before = await messageCount(page);

  const second = await runFastPolledJob(page);
  await expect.poll(() => messageCount(page), { timeout: 20_000 }).toBeGreaterThan(before + 100);

  await expect(opened).toBeInViewport();
  expect(await box(opened)).toEqual(rowBefore);
  expect(await box(detail)).toEqual(detailBefore);
  await expect(opened).toHaveAttribute('aria-selected', 'true');

  // Closed, with follow on: the newest row comes into view, and the header counts every message.
  await page.getByTestId('traffic-detail-close').click();
  await cancelTask(page, second);
  await expect(rows(page).last()).toBeInViewport();
  // Every row is there to scroll to, the first one too, though only those in view are drawn.
  const table = drawer(page).getByRole('table', { name: 'Messages' });
  expect(Number(await table.getAttribute('aria-rowcount'))).toBeGreaterThan(60);
  expect(await rows(page).count()).toBeLessThan(45);
  await page.getByTestId('traffic-follow').uncheck();
  await drawer(page)
    .getByTestId('traffic-rows')
    .evaluate((element) => (element.scrollTop = 0));
  await expect(rows(page).filter({ hasText: 'initialize' }).first()).toBeInViewport();

  // The first task's detail opens the drawer on that task's messages, and only those.
  await taskRow(page, first).click();
  await page.getByTestId('task-traffic').click();
  await expect(drawer(page)).toHaveAttribute('data-open', 'true');
  await expect(page.getByTestId('traffic-task')).toHaveValue(first);
  await expect(rows(page).first()).toBeVisible();
  for (const row of await rows(page).all()) await expect(row).toContainText(first);
  await expect(rows(page).filter({ hasText: 'tools/list' })).toHaveCount(0);
  await page.getByTestId('traffic-method').selectOption('tasks/cancel');
  await expect(rows(page)).toHaveCount(1);
  // Unfiltered, then by kind and by a search of the bodies.
  await page.getByTestId('traffic-unfilter').click();
  await expect(rows(page).first()).toBeVisible();
  await page.getByTestId('traffic-kind').selectOption('notification');
  for (const row of await rows(page).all()) await expect(row).toHaveAttribute('data-kind', 'notification');
  await page.getByTestId('traffic-kind').selectOption('all');
  await page.getByTestId('traffic-search').fill('no message says this');
  await expect(rows(page)).toHaveCount(0);
  await expect(page.getByTestId('traffic-empty')).toHaveText('No message matches the filters.');
  await page.getByTestId('traffic-search').fill('');

  // Clear resets the counts.
  await page.getByTestId('traffic-clear').click();
  await expect(page.getByTestId('traffic-count')).toContainText(/\((0|[1-9]\d?) messages/);
});

test('copy as curl, resend after asking, copy the answer; then the keyboard: rows, Enter, Escape, the drawer opened again and resized, its height kept', async ({
  connected: page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await openDrawer(page);
  const lists = rows(page).filter({ hasText: 'tools/list' });
  await expect(lists).toHaveCount(1);
  await lists.first().click();
  const detail = page.getByTestId('traffic-detail');
  await expect(detail.getByTestId('traffic-http')).toContainText('/demo/mcp');

  // "copied" lasts a moment: every state the button takes is recorded, so a late look still sees it.
  const curlStates = await watchAttribute(detail.getByTestId('copy-curl'), 'data-copy-state');
  await detail.getByTestId('copy-curl').click();
  await expect.poll(curlStates).toContain('copied');
  const curl = await clipboard(page);
  expect(curl).toMatch(/^curl -sS -X POST 'http:\/\/127\.0\.0\.1:\d+\/demo\/mcp'/);
  expect(curl).toContain("-H 'mcp-session-id: ");
  expect(curl).toContain("-H 'mcp-protocol-version: 2025-11-25'");
  expect(curl).toMatch(/--data-raw '\{"method":"tools\/list",.*"id":\d+\}'$/);

  await detail.getByTestId('copy-answer').click();
  const original = JSON.parse(await clipboard(page)) as { id: number; result: unknown };

  await detail.getByTestId('resend').click();
  const dialog = page.getByTestId('resend-dialog');
  await expect(dialog).toBeVisible();
  await expect(page.getByTestId('resend-target')).toContainText(/http:\/\/127\.0\.0\.1:\d+\/demo\/mcp/);
  await expect(lists).toHaveCount(1);
  await page.getByTestId('resend-confirm').click();
  await expect(page.getByTestId('resend-answer')).toContainText('slow_job');
  // Nothing went before the person said so: a request sent when the dialog opened would have gone to the
  // engine ahead of the confirmed one, so its row would be here by the time the confirmed one is answered.
  await expect(lists).toHaveCount(2);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(lists).toHaveCount(2);

  // The resent request's own row: a fresh id, the same result.
  await lists.nth(1).click();
  await detail.getByTestId('copy-answer').click();
  const again = JSON.parse(await clipboard(page)) as { id: number; result: unknown };
  expect(again.id).not.toBe(original.id);
  expect(again.result).toEqual(original.result);

  // Edit and resend checks the params before anything can go.
  await detail.getByTestId('edit-resend').click();
  await page.getByTestId('resend-params').fill('{ not json');
  await expect(dialog.getByRole('alert')).toContainText('Not JSON');
  await expect(page.getByTestId('resend-confirm')).toBeDisabled();
  await page.getByTestId('resend-params').fill('[1]');
  await expect(dialog.getByRole('alert')).toContainText('must be a JSON object');
  await page.getByTestId('resend-params').fill('{}');
  await expect(page.getByTestId('resend-confirm')).toBeEnabled();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await page.getByTestId('traffic-detail-close').click();
  await expect(detail).toBeHidden();

  // The keyboard: up and down move through the rows, Enter opens one, Escape closes it and then the drawer.
  const times = rows(page).getByTestId('traffic-time');
  await expect(times.nth(2)).toBeVisible();
  await times.first().focus();
  await page.keyboard.press('ArrowDown');
  await expect(times.nth(1)).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(times.nth(2)).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(times.nth(1)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(detail).toBeVisible();
  await expect(rows(page).nth(1)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Escape');
  await expect(detail).toBeHidden();
  await expect(drawer(page)).toHaveAttribute('data-open', 'true');
  await expect(times.nth(1)).toBeFocused();
  const table = drawer(page).getByRole('table', { name: 'Messages' });
  const rowCount = Number(await table.getAttribute('aria-rowcount'));
  await page.keyboard.press('Escape');
  await expect(drawer(page)).toHaveAttribute('data-open', 'false');

  // Opened again: the same log, from the engine again. The drawer resizes from the keyboard too.
  await openDrawer(page);
  await expect(rows(page).first()).toBeVisible();
  expect(Number(await table.getAttribute('aria-rowcount'))).toBeGreaterThanOrEqual(rowCount);
  const before = (await box(drawer(page))).height;
  await page.getByTestId('traffic-resize').focus();
  await page.keyboard.press('ArrowUp');
  await expect.poll(async () => (await box(drawer(page))).height).toBeGreaterThan(before);
  // The main pane above shrinks with it (nothing draws under the drawer); the sidebar beside it keeps its
  // height, so the task list does not lose rows to the drawer.
  const asideBefore = await box(page.locator('aside'));
  for (let i = 0; i < 8; i++) await page.keyboard.press('PageUp');
  const { y: top, height: tall, x: left } = await box(drawer(page));
  expect(tall).toBeGreaterThan(before + 100);
  const main = await box(page.locator('main'));
  expect(main.y + main.height).toBeLessThanOrEqual(top + 0.5);
  const aside = await box(page.locator('aside'));
  expect(aside.height).toBe(asideBefore.height);
  expect(aside.x + aside.width).toBeLessThanOrEqual(left + 0.5);
  await expect(page.getByRole('heading', { name: 'Tools' })).toBeInViewport();
  await page.reload();
  await expect(connectionStatus(page)).toHaveText('Connected');
  await openDrawer(page);
  expect((await box(drawer(page))).height).toBe(tall);
});
