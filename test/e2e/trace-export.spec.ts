import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { parseTraceText } from '../../src/engine/trace/schema';
import { runTool } from '../helpers/task-page';

/** Clicks an export item and reads the file the browser downloads. */
async function exported(page: Page, testId: string): Promise<{ name: string; text: string }> {
  const menu = page.getByTestId('export-menu');
  if (!(await menu.isVisible())) await page.getByTestId('export-button').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: await readFile(path, 'utf8') };
}

test('export a trace and a HAR of a completed slow_job, redacted unless asked', async ({ page }) => {
  await page.goto('/?server=/demo/mcp');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await page.getByTestId('headers-button').click();
  await page.locator('#headers').fill('Authorization: Bearer e2e-secret\nX-Team: blue');
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Reconnect' }).click();
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');

  const taskId = await runTool(page, 'slow_job', {
    durationMs: '800',
    steps: '2',
    pollIntervalMs: '200',
    label: 'export',
  });
  const detail = page.getByTestId('task-detail');
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

test('a HAR is disabled, with the reason, while no HTTP exchange has been answered', async ({ page }) => {
  // Nothing listens on the discard port: the connection fails before any answer comes.
  await page.goto('/?server=http://127.0.0.1:9/mcp');
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-status', 'unreachable');
  await page.getByTestId('export-button').click();
  await expect(page.getByTestId('export-har')).toBeDisabled();
  await expect(page.getByTestId('export-menu')).toContainText('No HTTP exchange recorded yet');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('export-menu')).toBeHidden();
  await expect(page.getByTestId('export-button')).toBeFocused();
});
