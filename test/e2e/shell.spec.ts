import { expect, test } from '@playwright/test';

test('opens connected to the demo receiver and lists its tools', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await expect(page.getByTestId('server-name')).toHaveText('Taskscope demo receiver');
  await expect(page.getByTestId('protocol-version')).toHaveText('2025-11-25');
  const tools = page.getByTestId('tool-list');
  await expect(tools.getByTestId('tool-slow_job')).toContainText('task required');
  await expect(tools.getByTestId('tool-summarise')).toContainText('task optional');
  await expect(tools.getByTestId('tool-echo')).toContainText('no task');
});

test('says clearly when the receiver cannot be reached, and keeps working', async ({ page }) => {
  await page.goto('/?server=http://127.0.0.1:9/mcp');
  // Nothing listens there: unreachable, retried with backoff while the page is open.
  await expect(page.getByTestId('connection-status')).toContainText('Unreachable');
  await expect(page.getByTestId('connection-retry')).toContainText('retrying');
  await expect(page.getByRole('alert')).toContainText(/could not be reached|refused/i);
  await page.getByLabel('Receiver URL').fill('/demo/mcp');
  // Unreachable is retried by itself: the header offers Reconnect (and Disconnect) for it.
  await page.getByRole('button', { name: 'Reconnect', exact: true }).click();
  await expect(page.getByTestId('server-name')).toHaveText('Taskscope demo receiver');
});

test('a URL typed without a scheme gets one, visibly; nothing listening is told apart from CORS', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await page.getByLabel('Receiver URL').fill('127.0.0.1:9/mcp');
  await page.getByRole('button', { name: 'Reconnect' }).click();
  await expect(page.getByLabel('Receiver URL')).toHaveValue('http://127.0.0.1:9/mcp');
  await expect(page.getByRole('alert')).toContainText('Nothing answers at http://127.0.0.1:9/mcp');
});

test('follows the system theme and toggles it', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');
  await expect(page.locator('html')).toHaveClass(/dark/);
  await page.getByRole('button', { name: 'Theme: system' }).click();
  await expect(page.locator('html')).not.toHaveClass(/dark/);
  await page.getByRole('button', { name: 'Theme: light' }).click();
  await expect(page.locator('html')).toHaveClass(/dark/);
});

test('the traffic drawer lists every message with its HTTP status and latency, and opens one raw', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await page.getByRole('button', { name: /Traffic/ }).click();
  const drawer = page.getByRole('region', { name: 'Traffic' });
  // A request and its answer share one row, as in a browser's network panel.
  const answer = drawer.getByRole('row').filter({ hasText: 'tools/list' });
  await expect(answer).toContainText('200');
  await expect(answer).toContainText(/\d+ ms/);
  await answer.click();
  await expect(drawer).toContainText('"slow_job"');
});
