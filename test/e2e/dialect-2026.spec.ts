import { startDemoReceiver2026 } from '../helpers/receiver-2026';
import { connect, connectionStatus, expect, runTask, test } from './fixtures';

/**
 * The page and its Worker wired together on the 2026-07-28 generation: the demo endpoint `npm start` serves
 * beside the 2025-11-25 one, then a 2026-07-28 receiver without CORS through the local relay. What the engine
 * does there (discover, polling at pollIntervalMs, the inline result, the input round, cancel) is checked in
 * test/integration/dialect-2026.test.ts; this is the one smoke that a browser alone can show.
 */
test('2026-07-28: found by server/discover, a task run to its result with its timeline and countdown, and the same through the relay', async ({
  page,
}) => {
  await connect(page, '/demo/mcp-2026');
  await expect(page.getByTestId('server-name')).toContainText('2026-07-28');
  await expect(page.getByTestId('protocol-version')).toHaveText('2026-07-28');
  await expect(page.getByTestId('era-detection')).toContainText('server/discover');

  const { detail } = await runTask(page, 'slow_job', {
    durationMs: '2000',
    steps: '2',
    pollIntervalMs: '400',
    label: 'v2',
  });
  await expect(detail.getByTestId('poll-interval')).toHaveText('400 ms');
  await expect(detail.getByTestId('ttl-countdown')).not.toHaveText('');
  await expect(detail.getByTestId('result')).toContainText('Finished v2');
  await expect(detail.getByTestId('timeline').locator('[data-status="completed"]')).toBeVisible();

  // A receiver without CORS: the page offers the relay, and through it the same generation runs a task.
  const noCors = await startDemoReceiver2026({ cors: false });
  try {
    await page.goto(`/?server=${encodeURIComponent(noCors.url)}`);
    await page.getByTestId('relay-offer').click();
    await page.getByTestId('relay-confirm').click();
    await expect(connectionStatus(page)).toContainText('Connected');
    await expect(page.getByTestId('via-relay')).toBeVisible();
    await expect(page.getByTestId('protocol-version')).toHaveText('2026-07-28');
    const relayed = await runTask(page, 'slow_job', {
      durationMs: '1000',
      steps: '2',
      pollIntervalMs: '300',
      label: 'relayed',
    });
    await expect(relayed.detail.getByTestId('result')).toContainText('Finished relayed');
  } finally {
    await noCors.close();
  }
});
