import { everythingCommand, isAlive } from '../helpers/stdio';
import { startCli, type RunningCli } from '../helpers/taskscope-cli';
import { connectionStatus, expect, test } from './fixtures';

// `taskscope --stdio -- <server-everything in stdio mode>`, started by the test on a port of its own (the
// suite's server has no stdio server), serving the build run.mjs made. The bridge itself (one process per page
// connection, its exit status, 2026-07-28 through it) is checked in test/integration/stdio-bridge.test.ts, the
// command's side in cli-stdio.test.ts; here, the page with its console end to end.
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

const pidOf = (text: string | null) => Number(/^running · pid (\d+)$/.exec(text ?? '')?.[1]);

test('the root opens on the stdio server: console, a task to its result, Restart, and a reload gets its own process', async ({
  page,
}) => {
  await page.goto(`${cli.url}/`);
  await expect(page).toHaveURL(/\?server=%2Fstdio%2Feverything%2Fmcp$/);
  await expect(connectionStatus(page)).toHaveText('Connected');
  const consolePanel = page.getByTestId('stdio-console');
  const startLine = page
    .getByTestId('stdio-console-line')
    .filter({ hasText: 'Starting default (STDIO) server...' });
  await expect(startLine).toHaveAttribute('data-stream', 'stderr');
  const state = page.getByTestId('stdio-state');
  await expect(state).toHaveText(/^running · pid \d+$/);
  await expect(consolePanel).toContainText('$ ');
  await expect(consolePanel).toContainText('server-everything/dist/index.js stdio');
  const detail = page.getByTestId('task-detail');

  await page.getByTestId('tool-simulate-research-query').click();
  await page.locator('#arg-topic').fill('tides');
  await page.getByRole('button', { name: 'Run as task' }).click();
  await expect(detail.getByTestId('result')).toContainText('Research Report: tides', { timeout: 20_000 });
  await expect(detail.getByTestId('poll-interval')).toHaveText('1 s');

  // Restart starts the command again and reconnects; a task live in the old process ends with it. The
  // ambiguous query waits for the person's answer (up to a minute): live for as long as the test needs it,
  // where the plain one can be over (4 s) before a loaded machine has restarted the process.
  const first = pidOf(await state.textContent());
  await page.getByTestId('tool-simulate-research-query').click();
  await page.locator('#arg-topic').fill('restarts');
  await page.locator('#arg-ambiguous').check();
  await page.getByRole('button', { name: 'Run as task' }).click();
  await expect(detail.getByTestId('elicitation-form')).toContainText('could have multiple interpretations', {
    timeout: 20_000,
  });
  await page.getByTestId('stdio-restart').click();
  // A process running again, and another one (the pid is NaN while none runs).
  await expect
    .poll(async () => {
      const pid = pidOf(await state.textContent());
      return Number.isInteger(pid) && pid !== first;
    })
    .toBe(true);
  await expect(connectionStatus(page)).toHaveText('Connected');
  // The new process wrote its own start line to a console that began afresh.
  await expect(startLine).toHaveCount(1);
  await expect(detail.getByTestId('session-ended')).toContainText('ended');
  await expect(detail).not.toContainText('Research Report: restarts');

  // A reload stops the tab's process, and the reloaded page gets one of its own: one process per page, the one
  // it had before is gone, not left for the idle reaper.
  const beforeReload = pidOf(await state.textContent());
  await page.reload();
  await expect(connectionStatus(page)).toHaveText('Connected');
  await expect
    .poll(async () => {
      const pid = pidOf(await state.textContent());
      return Number.isInteger(pid) && pid !== beforeReload;
    })
    .toBe(true);
  await expect.poll(() => isAlive(beforeReload)).toBe(false);
});

test('a stdio server that dies: the header, the receiver card and the main pane say it exited, and Restart brings it back', async ({
  page,
}) => {
  await page.goto(`${cli.url}/`);
  await expect(connectionStatus(page)).toHaveText('Connected');
  const state = page.getByTestId('stdio-state');
  await expect(state).toHaveText(/^running · pid \d+$/);
  const pid = pidOf(await state.textContent());
  process.kill(pid, 'SIGKILL');
  await expect(state).toHaveText('ended · SIGKILL');

  // No request of the person's is needed: the engine hears it from the bridge, and every place says so.
  await expect(connectionStatus(page)).toHaveText('Server exited', { timeout: 15_000 });
  await expect(page.getByTestId('receiver-state')).toHaveText('· Server exited');
  await expect(page.getByTestId('connection-error')).toContainText('The stdio server was ended by SIGKILL');
  await expect(page.locator('body')).not.toContainText(/\bConnected\b/);

  await page.getByTestId('problem-restart').click();
  await expect(connectionStatus(page)).toHaveText('Connected');
  await expect(state).toHaveText(/^running · pid \d+$/);
  expect(pidOf(await state.textContent())).not.toBe(pid);
});
