import { expect, test } from '@playwright/test';
import { everythingCommand, isAlive } from '../helpers/stdio';
import { startCli, type RunningCli } from '../helpers/taskscope-cli';

// `taskscope --stdio -- <server-everything in stdio mode>`, started by the test on a port of its own (the
// suite's server has no stdio server), serving the build run.mjs made.
let cli: RunningCli;
test.beforeAll(async () => {
  const { command, args } = everythingCommand();
  cli = await startCli(['--no-open', '--port', '0', '--stdio', 'name=everything', '--', command, ...args], {
    env: { PORT: '' },
  });
});
test.afterAll(async () => {
  await cli?.stop();
});

const pidOf = async (text: string | null) => Number(/pid (\d+)/.exec(text ?? '')?.[1]);

test('the root opens on the stdio server: its console shows stderr and pid, and a task runs to its result', async ({
  page,
}) => {
  await page.goto(`${cli.url}/`);
  await expect(page).toHaveURL(/\?server=%2Fstdio%2Feverything%2Fmcp$/);
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  const consolePanel = page.getByTestId('stdio-console');
  await expect(
    consolePanel.getByTestId('stdio-console-line').filter({ hasText: 'Starting default (STDIO) server...' }),
  ).toHaveAttribute('data-stream', 'stderr');
  await expect(page.getByTestId('stdio-state')).toHaveText(/^running · pid \d+$/);
  await expect(consolePanel).toContainText('$ ');
  await expect(consolePanel).toContainText('server-everything/dist/index.js stdio');

  await page.getByTestId('tool-simulate-research-query').click();
  await page.locator('#arg-topic').fill('tides');
  await page.getByRole('button', { name: 'Run as task' }).click();
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('result')).toContainText('Research Report: tides', { timeout: 20_000 });
  await expect(detail.getByTestId('poll-interval')).toHaveText('1 s');
});

test('Restart starts the command again and reconnects; the task live in the old process ends with it', async ({
  page,
}) => {
  await page.goto(`${cli.url}/`);
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await expect(page.getByTestId('stdio-state')).toHaveText(/^running · pid \d+$/);
  const before = await pidOf(await page.getByTestId('stdio-state').textContent());

  // The ambiguous query waits for the person's answer (up to a minute): live for as long as the test needs it,
  // where the plain one can be over (4 s) before a loaded machine has restarted the process.
  await page.getByTestId('tool-simulate-research-query').click();
  await page.locator('#arg-topic').fill('restarts');
  await page.locator('#arg-ambiguous').check();
  await page.getByRole('button', { name: 'Run as task' }).click();
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('elicitation-form')).toContainText('could have multiple interpretations', {
    timeout: 20_000,
  });

  await page.getByTestId('stdio-restart').click();
  await expect(page.getByTestId('stdio-state')).toHaveText(/^running · pid \d+$/);
  await expect.poll(async () => pidOf(await page.getByTestId('stdio-state').textContent())).not.toBe(before);
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  // The new process wrote its own start line to a console that began afresh.
  await expect(
    page.getByTestId('stdio-console-line').filter({ hasText: 'Starting default (STDIO) server...' }),
  ).toHaveCount(1);
  await expect(detail.getByTestId('session-ended')).toContainText('ended');
  await expect(detail).not.toContainText('Research Report: restarts');
});

test('a reload stops the tab’s process and the reloaded page gets one of its own', async ({ page }) => {
  await page.goto(`${cli.url}/`);
  await expect(page.getByTestId('stdio-state')).toHaveText(/^running · pid \d+$/);
  const before = await pidOf(await page.getByTestId('stdio-state').textContent());
  await page.reload();
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await expect.poll(async () => pidOf(await page.getByTestId('stdio-state').textContent())).not.toBe(before);
  // One process per page: the one the page had before its reload is gone, not left for the idle reaper.
  await expect.poll(() => isAlive(before)).toBe(false);
});
