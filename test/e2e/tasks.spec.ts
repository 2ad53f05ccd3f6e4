import { expect, test } from '@playwright/test';
import { runTool, watchText } from '../helpers/task-page';

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
});

test('slow_job: the timeline reaches completed and the result appears', async ({ page }) => {
  await runTool(page, 'slow_job', { durationMs: '2500', steps: '3', pollIntervalMs: '500', label: 'e2e' });
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('status-message')).toContainText(/Step \d\/3: e2e/);
  await expect(detail.getByTestId('timeline').locator('[data-status="working"]')).toBeVisible();
  await expect(detail.getByTestId('result')).toContainText('Finished e2e: 3 steps in 2500 ms.');
  await expect(detail.getByTestId('timeline').locator('[data-status="completed"]')).toBeVisible();
  await expect(detail.getByTestId('timeline').locator('[data-mark="result"]')).toHaveCount(1);
  await expect(detail.getByTestId('poll-interval')).toHaveText('500 ms');
  // The task list shows it too, with its status.
  await expect(page.getByTestId('task-row').first()).toContainText('completed');
  // ?task= names the selection, so the view can be shared.
  expect(new URL(page.url()).searchParams.get('task')).toBe(
    await detail.getByTestId('task-id').textContent(),
  );
});

test('flaky_job: failed, with its error result', async ({ page }) => {
  await runTool(page, 'flaky_job', { failAfterMs: '800', reason: 'disk full' });
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('result')).toContainText('flaky_job failed: disk full');
  await expect(detail.getByTestId('result')).toContainText('Error result');
  await expect(detail.getByTestId('status-message')).toHaveText('Failed: disk full');
  await expect(page.getByTestId('task-row').first()).toContainText('failed');
});

test('short_ttl_job: the countdown runs out, then the task is purged', async ({ page }) => {
  // The countdown runs from createdAt; the SDK receiver purges ttl after completion. Completing at 2 s
  // leaves the task "expired" on screen for about 2 s before the purge is seen: every text the countdown
  // shows is recorded, so a busy machine that looks late still sees each of them.
  const shown = await watchText(page, '[data-testid="task-detail"] [data-testid="ttl-countdown"]');
  await runTool(page, 'short_ttl_job', { ttlMs: '3000', durationMs: '2000' });
  const countdown = page.getByTestId('ttl-countdown');
  await expect(page.getByTestId('result')).toContainText('Done.');
  await expect(countdown).toContainText('purged', { timeout: 20_000 });
  // What was fetched before the purge is kept.
  await expect(page.getByTestId('result')).toContainText('Done.');
  // Counting down, then expired, then purged, in that order.
  const texts = await shown();
  const phase = (text: string) =>
    /^[1-3] s$/.test(text)
      ? 0
      : text === 'expired — the receiver may purge it now'
        ? 1
        : /^purged/.test(text)
          ? 2
          : -1;
  expect(texts.map(phase), texts.join(' | ')).not.toContain(-1);
  expect(new Set(texts.map(phase))).toEqual(new Set([0, 1, 2]));
  expect(texts.map(phase)).toEqual([...texts.map(phase)].sort());
  const seconds = texts.filter((t) => phase(t) === 0).map((t) => Number(t.split(' ')[0]));
  expect(seconds).toEqual([...seconds].sort().reverse());
});

test('receiver text is inert: no HTML from a statusMessage or a result, no javascript: links', async ({
  page,
}) => {
  await page.evaluate(() => ((window as unknown as { pwned?: number }).pwned = 0));
  const label = '<img src=x onerror="window.pwned=1"> [click me](javascript:window.pwned=2)';
  await runTool(page, 'slow_job', { durationMs: '600', steps: '1', pollIntervalMs: '200', label });
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('result')).toContainText('Finished');
  await expect(detail.getByTestId('status-message')).toContainText('<img src=x onerror=');
  await expect(detail.getByTestId('result')).toContainText('<img src=x onerror=');
  await expect(detail.locator('img[src="x"]')).toHaveCount(0);
  const link = detail.getByTestId('result').getByText('click me');
  await expect(link).toBeVisible();
  expect(await link.evaluate((el) => el.closest('a')?.getAttribute('href') ?? null)).toBeNull();
  await link.click();
  expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBe(0);
});

test('the task list filters by status and searches by tool; tasks keep polling off screen', async ({
  page,
}) => {
  await runTool(page, 'flaky_job', { failAfterMs: '300' });
  await runTool(page, 'slow_job', { durationMs: '1500', steps: '2', pollIntervalMs: '300' });
  await page.getByTestId('tool-echo').click(); // the task detail is off screen now
  const failed = page
    .getByRole('group', { name: 'Filter by status' })
    .getByRole('button', { name: /^failed/ });
  await expect(failed).toHaveText('failed 1');
  await expect(
    page.getByRole('group', { name: 'Filter by status' }).getByRole('button', { name: /^completed/ }),
  ).toHaveText('completed 1');
  await failed.click();
  await expect(page.getByTestId('task-row')).toHaveCount(1);
  await page.getByRole('group', { name: 'Filter by status' }).getByRole('button', { name: /^all/ }).click();
  await page.getByLabel('Search tasks').fill('slow');
  await expect(page.getByTestId('task-row')).toHaveCount(1);
  await expect(page.getByTestId('task-row')).toContainText('slow_job');
  // Disconnected, what was seen stays: the engine still filters and searches the closed connection's tasks.
  await expect(page.getByTestId('task-row')).toContainText('completed');
  await page.getByRole('button', { name: 'Disconnect' }).click();
  await expect(page.getByTestId('connection-status')).toHaveText('Disconnected');
  await page.getByLabel('Search tasks').fill('');
  await expect(page.getByTestId('task-row')).toHaveCount(2);
  await failed.click();
  await expect(page.getByTestId('task-row')).toHaveCount(1);
  await expect(page.getByTestId('task-row')).toContainText('flaky_job');
});

test('a forbidden tool cannot run as a task, and says why', async ({ page }) => {
  await page.getByTestId('tool-echo').click();
  const run = page.getByTestId('run-form').getByRole('button', { name: 'Run as task' });
  await expect(run).toBeDisabled();
  await expect(page.getByTestId('run-form')).toContainText('taskSupport: forbidden');
});

test('rich_result_job: every content kind renders; a result over 1 MB is cut short with the whole a download away', async ({
  page,
}) => {
  await runTool(page, 'rich_result_job', { durationMs: '300', padKb: '1200' });
  const result = page.getByTestId('result');
  await expect(result).toContainText('Quarterly report');
  await expect(result.locator('img[src^="data:image/png;base64,"]')).toHaveCount(1);
  await expect(result).toContainText('q3.csv');
  await expect(result).toContainText('Summary: all targets met.');
  await expect(result).toContainText('the view is cut short');
  const download = page.waitForEvent('download');
  await result.getByTitle('Download the JSON').click();
  const file = await (await download).path();
  const { readFile } = await import('node:fs/promises');
  expect((await readFile(file, 'utf8')).length).toBeGreaterThan(1_200_000);
});

test('following an id the receiver does not know says so, once, and stops asking', async ({ page }) => {
  await page.getByLabel('Task id to follow').fill('no-such-task');
  await page.getByLabel('Task id to follow').press('Enter');
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByRole('alert')).toContainText('does not know this task id');
  await expect(detail.getByTestId('poll-count')).toHaveText('1');
  await expect(page.getByTestId('task-row').first()).toContainText('unknown');
});

test('cancel a working task: it ends cancelled, with nothing left to cancel', async ({ page }) => {
  await runTool(page, 'slow_job', { durationMs: '60000', steps: '2', pollIntervalMs: '300' });
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('poll-count')).not.toHaveText('0');
  await detail.getByRole('button', { name: 'Cancel task' }).click();
  await expect(page.getByTestId('task-row').first()).toContainText('cancelled');
  await expect(detail.getByRole('button', { name: 'Cancel task' })).toHaveCount(0);
  // That polling then stops is checked under fake time (tracker.test.ts) and against the receiver (tracker-demo).
});

test('pausing live polling is remembered across a reload', async ({ page }) => {
  await page.getByTestId('pause-toggle').click();
  await expect(page.getByText('Live polling is paused.')).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await expect(page.getByText('Live polling is paused.')).toBeVisible();
  await page.getByTestId('pause-toggle').click();
  await expect(page.getByText('Live polling is paused.')).toHaveCount(0);
});

test('the overview draws each task as a bar coloured by status, and a bar opens its task', async ({
  page,
}) => {
  await runTool(page, 'flaky_job', { failAfterMs: '300', reason: 'overview' });
  const failedId = await page.getByTestId('task-detail').getByTestId('task-id').textContent();
  await expect(page.getByTestId('task-detail').getByTestId('result')).toContainText('overview');
  await runTool(page, 'slow_job', { durationMs: '60000', steps: '2', pollIntervalMs: '500' });
  const workingId = await page.getByTestId('task-detail').getByTestId('task-id').textContent();
  await page.getByTestId('overview-button').click();
  const waterfall = page.getByTestId('waterfall');
  await expect(waterfall).toContainText('Overview: 2 tasks');
  const failedBar = waterfall.locator(`[data-testid="waterfall-bar"][data-task-id="${failedId}"]`);
  const workingBar = waterfall.locator(`[data-testid="waterfall-bar"][data-task-id="${workingId}"]`);
  await expect(failedBar).toHaveAttribute('data-status', 'failed');
  await expect(workingBar).toHaveAttribute('data-status', 'working');
  // The bar's segments carry the status colours the badges use.
  await expect(failedBar.locator('.bg-st-failed')).toHaveCount(1);
  await expect(workingBar.locator('.bg-st-working')).toHaveCount(1);
  await failedBar.click();
  await expect(page.getByTestId('task-detail').getByTestId('task-id')).toHaveText(failedId ?? '');
});
