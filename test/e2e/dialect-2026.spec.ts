import { expect, test, type Page } from '@playwright/test';
import { startDemoReceiver2026 } from '../helpers/receiver-2026';
import { runTool } from '../helpers/task-page';

/** The same dashboard on the 2026-07-28 demo endpoint that `npm start` serves beside the 2025-11-25 one. */
const RECEIVER = '/demo/mcp-2026';

async function open(page: Page) {
  await page.goto(`/?server=${encodeURIComponent(RECEIVER)}`);
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
}

test('the receiver card says 2026-07-28, found by server/discover; tools say the receiver decides', async ({
  page,
}) => {
  await open(page);
  await expect(page.getByTestId('server-name')).toContainText('2026-07-28');
  await expect(page.getByTestId('protocol-version')).toHaveText('2026-07-28');
  await expect(page.getByTestId('era-detection')).toContainText('server/discover');
  await expect(page.getByTestId('task-capabilities')).toContainText('✓ tools/call');
  await expect(page.getByTestId('tool-slow_job')).toContainText('receiver decides');
  await expect(page.getByTestId('session-id')).toContainText('no sessions');
});

test('create → poll → result: the timeline, the pollIntervalMs in force, the result from the completing tasks/get', async ({
  page,
}) => {
  await open(page);
  await page.getByTestId('tool-slow_job').click();
  await expect(page.getByTestId('no-ttl-2026')).toBeVisible();
  await runTool(page, 'slow_job', { durationMs: '2000', steps: '2', pollIntervalMs: '400', label: 'v2' });
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('status-message')).toContainText(/Step \d\/2: v2/);
  await expect(detail.getByTestId('poll-interval')).toHaveText('400 ms');
  await expect(detail.getByTestId('result')).toContainText('Finished v2');
  await expect(detail.getByTestId('timeline').locator('[data-status="completed"]')).toBeVisible();
  await expect(detail.getByTestId('ttl-countdown')).not.toHaveText('');
  await expect(page.getByTestId('dialects')).toContainText('2026-07-28');
  // No tasks/result went out: the result came with the tasks/get that saw the task complete.
  await page.getByRole('button', { name: /Traffic/ }).click();
  const drawer = page.getByRole('region', { name: 'Traffic' });
  await expect(drawer).toContainText('tasks/get');
  await expect(drawer).not.toContainText('tasks/result');
});

test('an input round: the question from inputRequests in the task and the inbox, answered through tasks/update', async ({
  page,
}) => {
  await open(page);
  await page.getByTestId('tool-ask_user').click();
  await page.locator('#arg-question').fill('Which colour, in 2026?');
  await page.getByRole('button', { name: 'Run as task' }).click();
  const form = page.getByTestId('task-detail').getByTestId('elicitation-form');
  await expect(form).toContainText('Which colour, in 2026?');
  await expect(page.getByTestId('inbox-button')).toHaveAccessibleName('Inbox, 1 waiting');
  await form.getByLabel(/^Answer/).fill('teal');
  await form.getByRole('button', { name: 'Accept' }).click();
  await expect(page.getByTestId('task-detail').getByTestId('result')).toContainText('You answered: teal');
  await expect(page.getByTestId('inbox-button')).toHaveAccessibleName('Inbox, 0 waiting');
});

test('cancel: acknowledged, said that the receiver may go on, and the task ends cancelled', async ({
  page,
}) => {
  await open(page);
  await runTool(page, 'slow_job', { durationMs: '600000', steps: '2', pollIntervalMs: '500' });
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('status-message')).toContainText('Step');
  await detail.getByRole('button', { name: 'Cancel task' }).click();
  await expect(page.getByTestId('task-row').first()).toContainText('cancelled');
  await expect(detail.getByTestId('observations')).toContainText('may still go on');
});

test('a 2026-07-28 receiver without CORS works through the local relay, its routing headers forwarded', async ({
  page,
}) => {
  const noCors = await startDemoReceiver2026({ cors: false });
  try {
    await page.goto(`/?server=${encodeURIComponent(noCors.url)}`);
    await page.getByTestId('relay-offer').click();
    await page.getByTestId('relay-confirm').click();
    await expect(page.getByTestId('connection-status')).toContainText('Connected');
    await expect(page.getByTestId('protocol-version')).toHaveText('2026-07-28');
    await runTool(page, 'slow_job', {
      durationMs: '1000',
      steps: '2',
      pollIntervalMs: '300',
      label: 'relayed',
    });
    await expect(page.getByTestId('task-detail').getByTestId('result')).toContainText('Finished relayed');
  } finally {
    await noCors.close();
  }
});
