import { readFile } from 'node:fs/promises';
import { expect, test as base, type Locator, type Page } from '@playwright/test';
import { runTool } from '../helpers/task-page';
import { startCli, type RunningCli } from '../helpers/taskscope-cli';

/**
 * The set-up every spec repeats, written once, so a spec says only what it checks:
 * - each Playwright worker starts its own Taskscope server (the one `npm start` runs, with its embedded demo
 *   receivers) and points `baseURL` at it, so what one worker's tests make (tasks, counts, sessions) is never
 *   another's; `E2E_PORT` pins worker n to port E2E_PORT + n, otherwise each takes a free port;
 * - `connect(page, server?)` opens the page on a receiver (the embedded demo receiver when none is named) and
 *   waits until the header says so;
 * - the `connected` fixture is a page already connected to the demo receiver;
 * - `runTask` runs a tool as a task and hands back its detail and id;
 * - `answerQuestion` answers the elicitation form a task shows;
 * - `allowSignIn` presses Allow on the demo's consent page and waits for the popup to close itself;
 * - `downloaded` clicks an export item and reads the file the browser saved.
 */

export { expect };

/** The header's connection state. */
export const connectionStatus = (page: Page): Locator => page.getByTestId('connection-status');

/**
 * Opens the page on `server` (a URL or a path of the start server; the demo receiver when left out) with any
 * further query (`?report=1`…), and waits until it is connected, or for `status` when a test expects another.
 */
export async function connect(
  page: Page,
  server?: string,
  { query = '', status = 'Connected' }: { query?: string; status?: string | RegExp } = {},
): Promise<void> {
  const params = server === undefined ? '' : `server=${encodeURIComponent(server)}`;
  const search = [params, query.replace(/^[?&]/, '')].filter(Boolean).join('&');
  await page.goto(search ? `/?${search}` : '/');
  await expect(connectionStatus(page)).toHaveText(status);
}

/** Runs `tool` as a task from its form; the task detail it opens, and the task's id. */
export async function runTask(
  page: Page,
  tool: string,
  args: Record<string, string> = {},
  options: { ttl?: string } = {},
): Promise<{ detail: Locator; taskId: string }> {
  const taskId = await runTool(page, tool, args, options);
  return { detail: page.getByTestId('task-detail'), taskId };
}

/** Fills the elicitation form's fields by label and presses the button (Accept unless told otherwise). */
export async function answerQuestion(
  scope: Page | Locator,
  fields: Record<string, string>,
  button: 'Accept' | 'Decline' | 'Cancel' = 'Accept',
): Promise<Locator> {
  const form = scope.getByTestId('elicitation-form').first();
  await expect(form).toBeVisible();
  for (const [label, value] of Object.entries(fields))
    await form.getByLabel(new RegExp(`^${label}`)).fill(value);
  await form.getByRole('button', { name: button }).click();
  return form;
}

/**
 * Allow on the demo's consent page: the callback hands the code over and closes the popup, often before the
 * click has returned, so the close is awaited from before the click.
 */
export async function allowSignIn(popup: Page): Promise<void> {
  const closed = popup.waitForEvent('close');
  await popup
    .getByRole('button', { name: 'Allow' })
    .click()
    .catch((error: unknown) => {
      if (!popup.isClosed()) throw error;
    });
  await closed;
}

/** Clicks an item of the export menu (opening the menu first) and reads the file the browser downloads. */
export async function downloaded(page: Page, testId: string): Promise<string> {
  const menu = page.getByTestId('export-menu');
  if (!(await menu.isVisible())) await page.getByTestId('export-button').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  return readFile(await download.path(), 'utf8');
}

export const test = base.extend<
  {
    /** A page connected to the embedded demo receiver. */
    connected: Page;
  },
  {
    /** This worker's Taskscope server. */
    taskscope: RunningCli;
  }
>({
  taskscope: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a fixture needs from this pattern
    async ({}, use, workerInfo) => {
      const pinned = process.env.E2E_PORT;
      const port = pinned ? Number(pinned) + workerInfo.parallelIndex : 0;
      const server = await startCli(['--no-open', '--port', String(port)], { env: { PORT: '' } });
      await use(server);
      // Ctrl-C, as a person stops it; a server that has not exited 10 s later is killed, and says so.
      const stopped = server.stop();
      const late = await Promise.race([
        stopped.then(() => false),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 10_000)),
      ]);
      if (late) {
        console.warn(`The e2e Taskscope server did not stop on SIGINT:\n${server.output().slice(-2000)}`);
        await server.stop('SIGKILL');
      }
    },
    { scope: 'worker', timeout: 60_000 },
  ],
  baseURL: async ({ taskscope }, use) => use(taskscope.url),
  connected: async ({ page }, use) => {
    await connect(page);
    await use(page);
  },
});
