import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { parseTraceText } from '../../src/engine/trace/schema';
import { connect, connectionStatus, expect, runTask, test } from './fixtures';

/** Clicks an export item and reads the file the browser downloads, with the name it suggests. */
async function exported(page: Page, testId: string): Promise<{ name: string; text: string }> {
  const menu = page.getByTestId('export-menu');
  if (!(await menu.isVisible())) await page.getByTestId('export-button').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: await readFile(path, 'utf8') };
}

test('downloads: a HAR is disabled with its reason before any exchange; a trace and a HAR of a completed slow_job, redacted unless asked', async ({
  page,
}) => {
  // Nothing listens on the discard port: the connection fails before any answer comes.
  await connect(page, 'http://127.0.0.1:9/mcp', { status: /Unreachable/ });
  await expect(connectionStatus(page)).toHaveAttribute('data-status', 'unreachable');
  // Unreachable is retried by itself, with backoff, while the page is open.
  await expect(page.getByTestId('connection-retry')).toContainText('retrying');
  await page.getByTestId('export-button').click();
  await expect(page.getByTestId('export-har')).toBeDisabled();
  await expect(page.getByTestId('export-menu')).toContainText('No HTTP exchange recorded yet');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('export-menu')).toBeHidden();
  await expect(page.getByTestId('export-button')).toBeFocused();

  // A URL typed without a scheme gets one, visibly; in a browser, nothing listening is told apart from CORS.
  await page.getByLabel('Receiver URL').fill('127.0.0.1:9/mcp');
  await page.getByRole('button', { name: 'Reconnect', exact: true }).click();
  await expect(page.getByLabel('Receiver URL')).toHaveValue('http://127.0.0.1:9/mcp');
  await expect(page.getByTestId('connection-problem-pane')).toContainText(
    'Nothing answers at http://127.0.0.1:9/mcp',
  );

  // The demo receiver, with a secret header: Reconnect leaves the unreachable one behind.
  await page.getByLabel('Receiver URL').fill('/demo/mcp');
  await page.getByTestId('headers-button').click();
  await page.locator('#headers').fill('Authorization: Bearer e2e-secret\nX-Team: blue');
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Reconnect', exact: true }).click();
  await expect(connectionStatus(page)).toHaveText('Connected');
  await expect(page.getByTestId('server-name')).toHaveText('Taskscope demo receiver');

  const { detail, taskId } = await runTask(page, 'slow_job', {
    durationMs: '800',
    steps: '2',
    pollIntervalMs: '200',
    label: 'export',
  });
  await expect(detail.getByTestId('result')).toContainText('Finished export');

  await page.getByTestId('export-button').click();
  await expect(page.getByTestId('export-include-secrets')).not.toBeChecked();
  const trace = await exported(page, 'export-trace');
  expect(trace.name).toMatch(/^taskscope-127\.0\.0\.1-\d+-\d{8}-\d{6}\.trace\.json$/);
  expect(trace.text).not.toContain('e2e-secret');
  await expect(page.getByTestId('export-note')).toContainText(`Saved ${trace.name}`);
  const read = parseTraceText(trace.text);
  if (!read.ok) throw new Error(read.errors.join('\n'));
  const task = read.trace.tasks.find((t) => t.taskId === taskId);
  expect(task?.status).toBe('completed');
  expect(task?.tool).toBe('slow_job');
  expect(JSON.stringify(task?.result?.value.result)).toContain('Finished export');
  expect(task?.entries.some((e) => e.kind === 'observation' && e.status === 'completed')).toBe(true);
  expect(read.trace.receiver.headers).toEqual({ Authorization: '[redacted]', 'X-Team': 'blue' });
  expect(read.trace.tools.map((t) => t.name)).toContain('slow_job');

  const har = await exported(page, 'export-har');
  expect(har.name).toMatch(/\.har$/);
  expect(har.text).not.toContain('e2e-secret');
  const log = (
    JSON.parse(har.text) as { log: { version: string; entries: Array<{ request: { url: string } }> } }
  ).log;
  expect(log.version).toBe('1.2');
  expect(log.entries.length).toBeGreaterThan(0);
  expect(log.entries.every((e) => new URL(e.request.url).pathname === '/demo/mcp')).toBe(true);

  // Asked for, the secrets stay in.
  await page.getByTestId('export-include-secrets').check();
  const withSecrets = await exported(page, 'export-trace');
  expect(withSecrets.text).toContain('Bearer e2e-secret');
});
