import { expect, test } from '@playwright/test';

test('ask_user: the question waits in the task and the inbox; the answer completes the task', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await page.getByTestId('tool-ask_user').click();
  await page.locator('#arg-question').fill('Which colour should the report use?');
  await page.getByRole('button', { name: 'Run as task' }).click();

  const detail = page.getByTestId('task-detail');
  const form = detail.getByTestId('elicitation-form');
  await expect(form).toContainText('Which colour should the report use?');
  await expect(page.getByTestId('inbox-button')).toHaveAccessibleName('Inbox, 1 waiting');
  await expect(page.getByTestId('task-row').first()).toContainText('needs you');
  await expect(detail.getByTestId('timeline').locator('[data-status="input_required"]')).toBeVisible();

  // Validation runs before anything is sent: the answer is required.
  await form.getByLabel(/^Answer/).fill('');
  await form.getByRole('button', { name: 'Accept' }).click();
  await expect(form).toContainText('required');
  await form.getByLabel(/^Answer/).fill('teal');
  await form.getByRole('button', { name: 'Accept' }).click();

  await expect(detail.getByTestId('result')).toContainText('You answered: teal');
  await expect(page.getByTestId('inbox-button')).toHaveAccessibleName('Inbox, 0 waiting');
  await expect(detail.getByTestId('timeline').locator('[data-status="completed"]')).toBeVisible();
  await expect(detail.getByTestId('timeline').locator('[data-mark="input"]')).toHaveCount(2);

  await page.getByTestId('inbox-button').click();
  await expect(page.getByTestId('inbox-view')).toContainText('accept');
});
