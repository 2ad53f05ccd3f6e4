import { expect, test } from '@playwright/test';
import { startUserDocsReceiver, type UserDocsReceiver } from '../helpers/user-docs-receiver';

let withCors: UserDocsReceiver;
let withoutCors: UserDocsReceiver;
test.beforeAll(async () => {
  withCors = await startUserDocsReceiver({ cors: true });
  withoutCors = await startUserDocsReceiver();
});
test.afterAll(async () => {
  await withCors.close();
  await withoutCors.close();
});

test('a receiver in the user documents’ dialect: the task runs, the envelope result shows, the dialect is named', async ({
  page,
}) => {
  await page.goto(`/?server=${encodeURIComponent(withCors.url)}`);
  await expect(page.getByTestId('server-name')).toHaveText('user-docs-receiver');
  await page.getByTestId('tool-job').click();
  await page.getByRole('button', { name: 'Run as task' }).click();
  await expect(page.getByTestId('result')).toContainText('all done');
  await expect(page.getByTestId('dialects')).toContainText('user-document shapes');
  expect(withCors.stats.resultBeforeTerminal).toBe(0);
  expect(withCors.stats.rateLimited).toBe(0);
});

test('a receiver that sends no CORS headers: the page says so, and what to do', async ({ page }) => {
  await page.goto(`/?server=${encodeURIComponent(withoutCors.url)}`);
  await expect(page.getByTestId('connection-status')).toHaveText('Connection failed');
  await expect(page.getByRole('alert')).toContainText('CORS');
});
