import type { Page } from '@playwright/test';
import { connectionStatus, expect, runTask, test } from './fixtures';
import { taskRow } from '../helpers/task-page';

const params = (page: Page) => new URL(page.url()).searchParams;

async function connectTo(page: Page, url: string) {
  await page.getByLabel('Receiver URL').fill(url);
  await page.getByRole('button', { name: /^(Reconnect|Connect)$/ }).click();
}

test('the address follows the receiver and the task open: Back walks opened tasks, reload and Back come back to exactly that, with no stray task; a pause of live polling survives a reload', async ({
  connected: page,
}) => {
  const { taskId: first } = await runTask(page, 'slow_job', {
    durationMs: '400',
    steps: '1',
    pollIntervalMs: '200',
  });
  await expect(page.getByTestId('result')).toContainText('Finished');
  expect(params(page).get('task')).toBe(first);
  // The demo receiver is what "/" opens: the address need not name it.
  expect(params(page).get('server')).toBeNull();

  // Opening tasks one after another makes history entries that Back walks through.
  const { taskId: second } = await runTask(page, 'short_ttl_job', { ttlMs: '60000' });
  expect(second).not.toBe(first);
  await taskRow(page, first).click();
  await expect(page.getByTestId('task-id')).toHaveText(first);
  await page.goBack();
  await expect(page.getByTestId('task-id')).toHaveText(second);
  expect(params(page).get('task')).toBe(second);

  // Another receiver, typed in the header: the address names it, and the old receiver's task is closed.
  await connectTo(page, '/demo/mcp-2026');
  await expect(page.getByTestId('protocol-version')).toHaveText('2026-07-28');
  await expect.poll(() => params(page).get('server')).toBe('/demo/mcp-2026');
  expect(params(page).get('task')).toBeNull();
  // The new receiver was never asked about the old receiver's tasks: nothing on its list.
  await expect(page.getByText('No tasks yet')).toBeVisible();
  await expect(page.getByTestId('task-row')).toHaveCount(0);

  // A reload comes back to the new receiver, and files nothing there.
  await page.reload();
  await expect(connectionStatus(page)).toHaveText('Connected');
  await expect(page.getByTestId('protocol-version')).toHaveText('2026-07-28');
  expect(params(page).get('server')).toBe('/demo/mcp-2026');
  await expect(page.getByText('No tasks yet')).toBeVisible();
  await expect(page.getByTestId('task-row')).toHaveCount(0);

  // Back: the first receiver with its task open, as it was.
  await page.goBack();
  await expect.poll(() => params(page).get('task')).toBe(second);
  await expect(page.getByTestId('protocol-version')).toHaveText('2025-11-25');
  await expect(page.getByTestId('task-id')).toHaveText(second);
  await expect(page.getByTestId('result')).toContainText('Done.');
  // Its history holds those two tasks alone: no "unknown" task was ever filed for either receiver.
  await expect(page.getByTestId('task-row')).toHaveCount(2);
  await expect(page.getByTestId('task-row').filter({ hasText: 'unknown' })).toHaveCount(0);

  // Forward again: the second receiver, still empty.
  await page.goForward();
  await expect(page.getByTestId('protocol-version')).toHaveText('2026-07-28');
  expect(params(page).get('task')).toBeNull();
  await expect(page.getByTestId('task-row')).toHaveCount(0);

  // Pausing live polling is kept in storage: a reload comes back paused, until it is resumed.
  await page.getByTestId('pause-toggle').click();
  await expect(page.getByText('Live polling is paused.')).toBeVisible();
  await page.reload();
  await expect(connectionStatus(page)).toHaveText('Connected');
  await expect(page.getByText('Live polling is paused.')).toBeVisible();
  await page.getByTestId('pause-toggle').click();
  await expect(page.getByText('Live polling is paused.')).toHaveCount(0);
});
