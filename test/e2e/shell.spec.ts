import { connectionStatus, expect, runTask, test } from './fixtures';

/**
 * The one smoke of the 2025-11-25 generation: the page and its Worker wired together against the demo
 * receiver. What each piece shows from a record is checked in jsdom next to it, and how each kind of task ends
 * through the engine's message boundary (test/integration/demo-task-outcomes.test.ts).
 */
test('opens connected to the demo receiver, lists its tools, runs slow_job to its result, and shows the traffic', async ({
  connected: page,
}) => {
  await expect(connectionStatus(page)).toHaveText('Connected');
  await expect(page.getByTestId('server-name')).toHaveText('Taskscope demo receiver');
  await expect(page.getByTestId('protocol-version')).toHaveText('2025-11-25');
  const tools = page.getByTestId('tool-list');
  await expect(tools.getByTestId('tool-slow_job')).toContainText('task required');
  await expect(tools.getByTestId('tool-summarise')).toContainText('task optional');
  await expect(tools.getByTestId('tool-echo')).toContainText('no task');

  const { detail, taskId } = await runTask(page, 'slow_job', {
    durationMs: '2500',
    steps: '3',
    pollIntervalMs: '500',
    label: 'e2e',
  });
  await expect(detail.getByTestId('status-message')).toContainText(/Step \d\/3: e2e/);
  await expect(detail.getByTestId('timeline').locator('[data-status="working"]')).toBeVisible();
  // The countdown to the task's expiry ticks on the page's clock while the task works.
  const countdown = detail.getByTestId('ttl-countdown');
  await expect(countdown).toHaveText(/^(\d+ min( \d+ s)?|\d+ s)$/);
  const first = await countdown.textContent();
  await expect(countdown).not.toHaveText(first ?? '');
  await expect(detail.getByTestId('result')).toContainText('Finished e2e: 3 steps in 2500 ms.');
  await expect(detail.getByTestId('timeline').locator('[data-status="completed"]')).toBeVisible();
  await expect(detail.getByTestId('timeline').locator('[data-mark="result"]')).toHaveCount(1);
  await expect(detail.getByTestId('poll-interval')).toHaveText('500 ms');
  await expect(page.locator(`[data-testid="task-row"][data-task-id="${taskId}"]`)).toContainText('completed');
  // ?task= names the selection, so the view can be shared.
  expect(new URL(page.url()).searchParams.get('task')).toBe(taskId);

  // The traffic drawer: a request and its answer share one row, as in a browser's network panel.
  await page.getByRole('button', { name: /Traffic/ }).click();
  const drawer = page.getByRole('region', { name: 'Traffic' });
  const answer = drawer.getByRole('row').filter({ hasText: 'tools/list' });
  await expect(answer).toContainText('200');
  await expect(answer).toContainText(/\d+ ms/);
  await answer.click();
  await expect(drawer).toContainText('"slow_job"');
});
