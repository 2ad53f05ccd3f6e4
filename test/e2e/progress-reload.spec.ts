import { expect, test, type Page } from '@playwright/test';

async function runSlowJob(page: Page, args: Record<string, string>) {
  await page.getByTestId('tool-slow_job').click();
  const form = page.getByTestId('run-form');
  for (const [name, value] of Object.entries(args)) await form.locator(`#arg-${name}`).fill(value);
  await form.getByRole('button', { name: 'Run as task' }).click();
  await expect(page.getByTestId('task-detail')).toBeVisible();
  await expect(page.getByTestId('task-id')).not.toHaveText('');
  return (await page.getByTestId('task-id').textContent()) ?? '';
}

test('after a reload mid-task, a new task gets only its own progress, and the first says its bar is from before the reload', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  const first = await runSlowJob(page, {
    durationMs: '8000',
    steps: '8',
    pollIntervalMs: '500',
    label: 'alpha-job',
  });
  const progress = page.getByTestId('task-detail').getByTestId('task-progress');
  await expect(progress).toContainText(/^[2-7]\/8/);

  // The session is taken up again after the reload; the first task keeps reporting on its old token.
  await page.reload();
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await expect(page.getByTestId('task-id')).toHaveText(first);
  const stale = page.getByTestId('task-detail').getByTestId('task-progress');
  await expect(stale).toHaveAttribute('data-stale', 'true');
  await expect(page.getByTestId('progress-reported')).toContainText('before this page loaded');

  const second = await runSlowJob(page, {
    durationMs: '1500',
    steps: '3',
    pollIntervalMs: '300',
    label: 'beta-job',
  });
  expect(second).not.toBe(first);
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('result')).toContainText('Finished beta-job');
  await expect(detail.getByTestId('task-progress')).toContainText('Done: beta-job');
  // The first task reports until its end, 8 s in: wait for its last report to have been sent to this page,
  // then check that none of its steps landed on the second task.
  await expect(page.locator(`[data-testid="task-row"][data-task-id="${first}"]`)).toContainText('completed', {
    timeout: 20_000,
  });
  await expect(detail.getByTestId('task-progress')).toContainText('Done: beta-job');
  const observations = detail.getByTestId('observations');
  await expect(observations).toContainText('beta-job');
  await expect(observations).not.toContainText('alpha-job');
  // The first task's bar still says where its value comes from: nothing reached this page on its old token.
  await page.locator(`[data-testid="task-row"][data-task-id="${first}"]`).click();
  await expect(page.getByTestId('task-detail').getByTestId('task-progress')).toHaveAttribute(
    'data-stale',
    'true',
  );
});
