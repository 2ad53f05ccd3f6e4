import { expect, test, type Locator, type Page } from '@playwright/test';
import { cancelTask, runTool, watchAttribute } from '../helpers/task-page';

const drawer = (page: Page) => page.getByTestId('traffic-drawer');
const rows = (page: Page) => drawer(page).getByTestId('traffic-row');

async function open(page: Page) {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await expect(page.getByTestId('tool-list')).toBeVisible();
}

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
 * Runs slow_job as a task, polled every 50 ms: about forty messages a second until it ends. By default it
 * works for 10 min, longer than the test: the test waits for the messages it needs, then cancels it.
 */
const runFastPolledJob = (page: Page, durationMs = 600_000, steps = 4) =>
  runTool(page, 'slow_job', {
    durationMs: String(durationMs),
    steps: String(steps),
    pollIntervalMs: '50',
  });

const box = async (locator: Locator) => {
  const b = await locator.boundingBox();
  if (!b) throw new Error('not visible');
  return b;
};

async function clipboard(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

test('an opened message stays where it is while 100 more arrive; every row stays reachable', async ({
  page,
}) => {
  // 25 s alone (a hundred messages and every row visited), twice that or more on a loaded machine.
  test.setTimeout(120_000);
  await open(page);
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
  // Clear resets the counts.
  await page.getByTestId('traffic-clear').click();
  await expect(page.getByTestId('traffic-count')).toContainText(/\((0|[1-9]\d?) messages/);
});

test('closed, the drawer counts the messages; opened, every one of them is there, also when opened again', async ({
  page,
}) => {
  await open(page);
  const job = await runFastPolledJob(page);
  await expect.poll(() => messageCount(page)).toBeGreaterThan(40);
  await cancelTask(page, job);
  await openDrawer(page);
  const table = drawer(page).getByRole('table', { name: 'Messages' });
  // The rows the engine kept while the drawer was closed arrive at once: the first exchange and the cancel.
  await expect(rows(page).last()).toBeVisible();
  const rowCount = Number(await table.getAttribute('aria-rowcount')) - 1;
  expect(rowCount).toBeGreaterThan(20);
  await expect(rows(page).filter({ hasText: 'tasks/cancel' }).first()).toBeAttached();
  await page.getByTestId('traffic-follow').uncheck();
  await drawer(page)
    .getByTestId('traffic-rows')
    .evaluate((element) => (element.scrollTop = 0));
  await expect(rows(page).filter({ hasText: 'initialize' }).first()).toBeInViewport();

  // Closed and opened again: the same log, from the engine again.
  await page.getByRole('button', { name: /^Traffic/ }).click();
  await expect(drawer(page)).toHaveAttribute('data-open', 'false');
  await openDrawer(page);
  await expect(rows(page).first()).toBeVisible();
  expect(Number(await table.getAttribute('aria-rowcount')) - 1).toBeGreaterThanOrEqual(rowCount);
});

test('the task detail opens the drawer on that task’s messages; filters and search narrow the rows', async ({
  page,
}) => {
  await open(page);
  const taskId = await runFastPolledJob(page, 600, 2);
  await expect(page.getByTestId('task-detail').getByTestId('status-headline')).toContainText('Completed', {
    timeout: 20_000,
  });
  await page.getByTestId('task-traffic').click();
  await expect(drawer(page)).toHaveAttribute('data-open', 'true');
  await expect(page.getByTestId('traffic-task')).toHaveValue(taskId);
  await expect(rows(page).first()).toBeVisible();
  const shown = await rows(page).count();
  expect(shown).toBeGreaterThan(2);
  for (const row of await rows(page).all()) await expect(row).toContainText(taskId);
  await expect(rows(page).filter({ hasText: 'tasks/get' }).first()).toBeVisible();
  await expect(rows(page).filter({ hasText: 'tools/list' })).toHaveCount(0);

  await page.getByTestId('traffic-method').selectOption('tasks/result');
  await expect(rows(page)).toHaveCount(1);
  await page.getByTestId('traffic-unfilter').click();
  await expect(rows(page).filter({ hasText: 'tools/list' }).first()).toBeVisible();
  await page.getByTestId('traffic-kind').selectOption('notification');
  for (const row of await rows(page).all()) await expect(row).toHaveAttribute('data-kind', 'notification');
  await page.getByTestId('traffic-kind').selectOption('all');
  await page.getByTestId('traffic-search').fill('"slow_job"');
  await expect(rows(page).filter({ hasText: 'tools/list' }).first()).toBeVisible();
  await page.getByTestId('traffic-search').fill('no message says this');
  await expect(rows(page)).toHaveCount(0);
  await expect(page.getByTestId('traffic-empty')).toHaveText('No message matches the filters.');
});

test('keyboard: up and down move through the rows, Enter opens one, Escape closes it and then the drawer', async ({
  page,
}) => {
  await open(page);
  await openDrawer(page);
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
  await expect(page.getByTestId('traffic-detail')).toBeVisible();
  await expect(rows(page).nth(1)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('traffic-detail')).toBeHidden();
  await expect(drawer(page)).toHaveAttribute('data-open', 'true');
  await expect(times.nth(1)).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(drawer(page)).toHaveAttribute('data-open', 'false');

  // The drawer resizes from the keyboard too, and keeps its height.
  await openDrawer(page);
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
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await openDrawer(page);
  expect((await box(drawer(page))).height).toBe(tall);
});

test('resend asks first, names the receiver, then gets the same answer; copy as curl and copy the answer', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await open(page);
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
});
