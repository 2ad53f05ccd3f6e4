import { expect, test, type Page } from '@playwright/test';
import { runTool } from '../helpers/task-page';

const params = (page: Page) => new URL(page.url()).searchParams;

async function connectTo(page: Page, url: string) {
  await page.getByLabel('Receiver URL').fill(url);
  await page.getByRole('button', { name: /^(Reconnect|Connect)$/ }).click();
}

test('the address follows the receiver and the task open; reload and Back come back to exactly that, with no stray task anywhere', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  const taskId = await runTool(page, 'slow_job', { durationMs: '400', steps: '1', pollIntervalMs: '200' });
  await expect(page.getByTestId('result')).toContainText('Finished');
  expect(params(page).get('task')).toBe(taskId);
  // The demo receiver is what "/" opens: the address need not name it.
  expect(params(page).get('server')).toBeNull();

  // Another receiver, typed in the header: the address names it, and the old receiver's task is closed.
  await connectTo(page, '/demo/mcp-2026');
  await expect(page.getByTestId('protocol-version')).toHaveText('2026-07-28');
  await expect.poll(() => params(page).get('server')).toBe('/demo/mcp-2026');
  expect(params(page).get('task')).toBeNull();
  // The new receiver was never asked about the old receiver's task: nothing on its list.
  await expect(page.getByText('No tasks yet')).toBeVisible();
  await expect(page.getByTestId('task-row')).toHaveCount(0);

  // A reload comes back to the new receiver, and files nothing there.
  await page.reload();
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await expect(page.getByTestId('protocol-version')).toHaveText('2026-07-28');
  expect(params(page).get('server')).toBe('/demo/mcp-2026');
  await expect(page.getByText('No tasks yet')).toBeVisible();
  await expect(page.getByTestId('task-row')).toHaveCount(0);

  // Back: the first receiver with its task open, as it was.
  await page.goBack();
  await expect.poll(() => params(page).get('task')).toBe(taskId);
  await expect(page.getByTestId('protocol-version')).toHaveText('2025-11-25');
  await expect(page.getByTestId('task-id')).toHaveText(taskId);
  await expect(page.getByTestId('result')).toContainText('Finished');
  // Its history holds that task alone: no "unknown" task was ever filed for either receiver.
  await expect(page.getByTestId('task-row')).toHaveCount(1);
  await expect(page.getByTestId('task-row')).not.toContainText('unknown');

  // Forward again: the second receiver, still empty.
  await page.goForward();
  await expect(page.getByTestId('protocol-version')).toHaveText('2026-07-28');
  expect(params(page).get('task')).toBeNull();
  await expect(page.getByTestId('task-row')).toHaveCount(0);
});

test('opening tasks one after another makes history entries that Back walks through', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  const first = await runTool(page, 'short_ttl_job', { ttlMs: '60000' });
  const second = await runTool(page, 'short_ttl_job', { ttlMs: '60000' });
  expect(first).not.toBe(second);
  await page.locator(`[data-testid="task-row"][data-task-id="${first}"]`).click();
  await expect(page.getByTestId('task-id')).toHaveText(first);
  await page.goBack();
  await expect(page.getByTestId('task-id')).toHaveText(second);
  expect(params(page).get('task')).toBe(second);
});
