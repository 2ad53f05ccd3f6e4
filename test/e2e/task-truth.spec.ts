import { expect, test, type Page } from '@playwright/test';
import { runTool } from '../helpers/task-page';

const filter = (page: Page, name: string) =>
  page.getByRole('group', { name: 'Filter by status' }).getByRole('button', { name: new RegExp(`^${name}`) });

test('an early purge is a warning on the task, linked to its rule, and on its timeline beside the deadline it broke', async ({
  page,
}) => {
  await page.goto(`/?server=${encodeURIComponent('/demo/mcp?faults=purge-early')}`);
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  // Gone half way through a 6 s run, with 8 s of ttl asked for: about 5 s before its deadline.
  await runTool(page, 'job', { durationMs: '6000', pollInterval: '500' }, { ttl: '8000' });
  const detail = page.getByTestId('task-detail');
  const breaks = detail.getByTestId('rule-breaks');
  await expect(breaks).toBeVisible({ timeout: 15_000 });
  const line = breaks.locator('[data-rule="ttl-not-purged-early"]');
  await expect(line).toContainText('MUST');
  await expect(line).toContainText(/purged \d s before its ttl ran out/);
  await expect(line.getByTestId('rule-link')).toHaveAttribute(
    'href',
    /modelcontextprotocol\.io\/specification\/2025-11-25\/basic\/utilities\/tasks#/,
  );
  await expect(detail.getByTestId('warning-count')).not.toHaveText('0');
  // A task gone before it ended has no outcome: "purged" is its badge.
  await expect(page.getByTestId('task-row').first()).toContainText('purged');

  const timeline = detail.getByTestId('timeline');
  const ruleMark = timeline.locator('[data-mark="rule"][data-rule="ttl-not-purged-early"]');
  const purge = timeline.locator('[data-mark="purge"]');
  const deadline = timeline.locator('[data-mark="ttl"]');
  await expect(ruleMark).toHaveCount(1);
  await expect(purge).toHaveCount(1);
  await expect(deadline).toHaveCount(1);
  // The deadline is drawn where it lay, well right of the purge (not squeezed onto the bar's end).
  const bar = (await timeline.locator('.relative.h-6').first().boundingBox())!;
  const at = async (l: typeof purge) => (await l.boundingBox())!.x;
  expect(await at(deadline)).toBeGreaterThan((await at(purge)) + bar.width * 0.2);
  expect(Math.abs((await at(ruleMark)) - (await at(purge)))).toBeLessThan(8);
});

test('failed and cancelled tasks keep their outcome after their ttl: their filters still find them, purge is a second mark', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  const failed = await runTool(page, 'flaky_job', { failAfterMs: '200', ttlMs: '2500' });
  await expect(page.getByTestId('result')).toContainText('flaky_job failed');
  // Its ttl outlasts the set-up up to the Cancel click on a loaded machine (at 2.5 s it was purged first).
  const cancelled = await runTool(page, 'slow_job', {
    durationMs: '30000',
    steps: '1',
    pollIntervalMs: '300',
    ttlMs: '8000',
  });
  await page.getByTestId('task-detail').getByRole('button', { name: 'Cancel task' }).click();
  await expect(page.getByTestId('task-row').first()).toContainText('cancelled');

  // Both are purged once their ttl has run out (the demo receiver purges at its ttl).
  const row = (id: string) => page.locator(`[data-testid="task-row"][data-task-id="${id}"]`);
  await expect(row(failed).getByTestId('purged-marker')).toBeVisible({ timeout: 20_000 });
  await expect(row(cancelled).getByTestId('purged-marker')).toBeVisible({ timeout: 30_000 });
  await expect(row(failed)).toContainText('failed');
  await expect(row(cancelled)).toContainText('cancelled');

  await expect(filter(page, 'failed')).toHaveText('failed 1');
  await expect(filter(page, 'cancelled')).toHaveText('cancelled 1');
  await expect(filter(page, 'purged')).toHaveText('purged 2');
  await filter(page, 'failed').click();
  await expect(page.getByTestId('task-row')).toHaveCount(1);
  await expect(row(failed)).toBeVisible();
  await filter(page, 'cancelled').click();
  await expect(page.getByTestId('task-row')).toHaveCount(1);
  await expect(row(cancelled)).toBeVisible();
});
