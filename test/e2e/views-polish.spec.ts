import { expect, test, type Page } from '@playwright/test';

async function open(page: Page) {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await expect(page.getByTestId('tool-list')).toBeVisible();
}

test('Run again names the arguments its form has no field for, as text, the first ten and how many more', async ({
  page,
}) => {
  await open(page);
  // A task from the form, for a tools/call in the traffic to edit and resend.
  await page.getByTestId('tool-slow_job').click();
  const form = page.getByTestId('run-form');
  const fieldCount = await form.locator('[id^="arg-"]').count();
  expect(fieldCount).toBeGreaterThan(0);
  await form.locator('#arg-durationMs').fill('300');
  await form.locator('#arg-steps').fill('1');
  await form.getByRole('button', { name: 'Run as task' }).click();
  await expect(page.getByTestId('task-detail')).toBeVisible();
  const firstId = (await page.getByTestId('task-id').textContent()) ?? '';

  // The same call resent with twelve arguments slow_job's schema does not have.
  const hostile = '<img src=x onerror="window.__injected=1">';
  const extras = [
    hostile,
    ...Array.from({ length: 11 }, (_, i) => `extra_${String(i + 1).padStart(2, '0')}`),
  ];
  const args: Record<string, unknown> = { durationMs: 300, steps: 1, pollIntervalMs: 200, label: 'resent' };
  for (const name of extras) args[name] = true;
  await page.getByRole('button', { name: /^Traffic/ }).click();
  const drawer = page.getByTestId('traffic-drawer');
  await expect(drawer).toHaveAttribute('data-open', 'true');
  await drawer.getByTestId('traffic-row').filter({ hasText: 'tools/call' }).first().click();
  await page.getByTestId('traffic-detail').getByTestId('edit-resend').click();
  await page
    .getByTestId('resend-params')
    .fill(JSON.stringify({ name: 'slow_job', arguments: args, task: { ttl: 30_000 } }));
  await page.getByTestId('resend-confirm').click();
  await expect(page.getByTestId('resend-answer')).toContainText('taskId');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('resend-dialog')).toBeHidden();
  // The drawer closed again: the task list has its height back.
  await page.getByRole('button', { name: /^Traffic/ }).click();
  await expect(drawer).toHaveAttribute('data-open', 'false');

  // The resent call is a task of its own; its Run again fills what fits and names the rest.
  const rows = page.getByTestId('task-row');
  await expect(rows).toHaveCount(2);
  const ids = await rows.evaluateAll((all) => all.map((r) => (r as HTMLElement).dataset.taskId ?? ''));
  const resentId = ids.find((id) => id !== firstId) ?? '';
  expect(resentId).not.toBe('');
  await page.locator(`[data-testid="task-row"][data-task-id="${resentId}"]`).click();
  await expect(page.getByTestId('task-id')).toHaveText(resentId);
  await expect(page.getByTestId('task-call').getByTestId('call-args')).toContainText('extra_11');
  await page.getByTestId('task-call').getByRole('button', { name: 'Run again' }).click();

  const note = form.getByTestId('run-again-note');
  await expect(note).toContainText(resentId);
  const shown = extras.slice(0, 10).map((name) => JSON.stringify(name));
  await expect(note).toContainText(
    `Left out, as no field of this form holds them: ${shown.join(', ')} and 2 more.`,
  );
  await expect(note).not.toContainText('extra_10');
  // The hostile name is text, not markup.
  await expect(note.locator('img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __injected?: number }).__injected)).toBeUndefined();
  // No field was made up for them; the arguments that fit are in theirs.
  await expect(form.locator('[id^="arg-"]')).toHaveCount(fieldCount);
  await expect(form.locator('#arg-label')).toHaveValue('resent');
  await expect(form.locator('#arg-pollIntervalMs')).toHaveValue('200');
});

test('the tool list: down from the search enters the first tool, up from the first tool goes back to the search', async ({
  page,
}) => {
  await open(page);
  const search = page.getByTestId('tool-search');
  const tools = await page
    .getByTestId('tool-list')
    .getByRole('button')
    .evaluateAll((buttons) => buttons.map((b) => (b as HTMLElement).dataset.testid));
  expect(tools.length).toBeGreaterThan(2);

  await search.click();
  await expect(search).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByTestId('tool-list').getByTestId(tools[0]!)).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByTestId('tool-list').getByTestId(tools[1]!)).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(page.getByTestId('tool-list').getByTestId(tools[0]!)).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(search).toBeFocused();
  // Back in the search, keys are text again, and down enters the list once more.
  await page.keyboard.type('job');
  await expect(search).toHaveValue('job');
  const matching = page.getByTestId('tool-list').getByRole('button');
  const firstMatch = await matching.first().getAttribute('data-testid');
  await page.keyboard.press('ArrowDown');
  await expect(page.getByTestId('tool-list').getByTestId(firstMatch!)).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(search).toBeFocused();
  await expect(search).toHaveValue('job');
  // Nothing was opened on the way.
  await expect(page.getByTestId('run-form')).toHaveCount(0);
});
