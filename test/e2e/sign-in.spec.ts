import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { runTool } from '../helpers/task-page';

/** Clicks an export item and reads the file the browser downloads. */

/**
 * Allow on the demo's consent page: the callback hands the code over and closes the popup, often before the
 * click has returned, so the close is awaited from before the click.
 */
async function allowAndClose(popup: Page): Promise<void> {
  const closed = popup.waitForEvent('close');
  await popup
    .getByRole('button', { name: 'Allow' })
    .click()
    .catch((error: unknown) => {
      if (!popup.isClosed()) throw error;
    });
  await closed;
}

async function exported(page: Page, testId: string): Promise<string> {
  const menu = page.getByTestId('export-menu');
  if (!(await menu.isVisible())) await page.getByTestId('export-button').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  return readFile(await download.path(), 'utf8');
}

/** Everything this origin keeps: localStorage, sessionStorage and every record of every IndexedDB store. */
async function everythingStored(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const dump: unknown[] = [{ ...localStorage }, { ...sessionStorage }];
    for (const info of await indexedDB.databases()) {
      if (!info.name) continue;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(info.name!);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      for (const store of Array.from(db.objectStoreNames)) {
        const rows = await new Promise<unknown[]>((resolve, reject) => {
          const all = db.transaction(store).objectStore(store).getAll();
          all.onsuccess = () => resolve(all.result);
          all.onerror = () => reject(all.error);
        });
        dump.push({ db: info.name, store, rows });
      }
      db.close();
    }
    return JSON.stringify(dump);
  });
}

/** What a person does: Sign in, Allow in the popup, and the popup closes itself. */
async function signInViaPopup(page: Page): Promise<void> {
  await expect(page.getByTestId('auth-status')).toHaveText('sign-in needed');
  const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('auth-sign-in').click()]);
  await expect(popup.getByRole('heading')).toHaveText('Taskscope demo authorization server');
  await allowAndClose(popup);
  await expect(page.getByTestId('auth-status')).toHaveText('signed in');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
}

test('sign in through the popup, run a task to its result, no secret kept anywhere, sign out', async ({
  page,
  context,
}) => {
  // The secrets of this sign-in, as they crossed the wire: the code, the verifier and the tokens.
  const secrets = new Set<string>();
  context.on('request', (request) => {
    const url = new URL(request.url());
    const code = url.searchParams.get('code');
    if (url.pathname === '/oauth/callback' && code) secrets.add(code);
    if (url.pathname === '/demo/auth/token') {
      const form = new URLSearchParams(request.postData() ?? '');
      for (const name of ['code', 'code_verifier', 'refresh_token']) {
        const value = form.get(name);
        if (value) secrets.add(value);
      }
    }
  });
  context.on('response', async (response) => {
    if (new URL(response.url()).pathname !== '/demo/auth/token') return;
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    for (const name of ['access_token', 'refresh_token'])
      if (typeof body[name] === 'string') secrets.add(body[name]);
  });

  await page.goto('/?server=/demo/mcp-auth');
  await expect(page.getByTestId('auth-status')).toHaveText('sign-in needed');
  await expect(page.getByTestId('connection-status')).not.toHaveText('Connected');
  const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('auth-sign-in').click()]);
  await expect(popup.getByRole('heading')).toHaveText('Taskscope demo authorization server');
  await allowAndClose(popup);

  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await expect(page.getByTestId('auth-status')).toHaveText('signed in');
  await expect(page.getByTestId('auth-issuer')).toHaveText(new URL('/demo/auth', page.url()).href);
  await expect(page.getByTestId('auth-client')).toContainText('registered dynamically');
  await expect(page.getByTestId('auth-scopes')).toHaveText('tools:run offline_access');
  await expect(page.getByTestId('auth-expires')).toContainText(/\d+ s/);

  await runTool(page, 'slow_job', { durationMs: '600', steps: '2', pollIntervalMs: '200', label: 'signed' });
  await expect(page.getByTestId('task-detail').getByTestId('result')).toContainText('Finished signed');

  // The steps are shown, redacted.
  await page.getByTestId('auth-steps').locator(':scope > summary').click();
  await expect(page.getByTestId('auth-step')).toHaveCount(7);

  // The flow's own exchanges are traffic of their own kind (redacted like the steps).
  await page.getByRole('button', { name: /^Traffic/ }).click();
  await page.getByTestId('traffic-kind').selectOption('auth');
  const signInRows = page.getByTestId('traffic-drawer').getByTestId('traffic-row');
  await expect(signInRows).toHaveCount(4);
  await expect(signInRows.first()).toContainText('oauth · sign-in');

  expect(secrets.size).toBeGreaterThanOrEqual(4);
  const stored = await everythingStored(page);
  const trace = await exported(page, 'export-trace');
  const har = await exported(page, 'export-har');
  const shown = await page.locator('body').innerText();
  for (const secret of secrets) {
    expect(stored).not.toContain(secret);
    expect(trace).not.toContain(secret);
    expect(har).not.toContain(secret);
    expect(shown).not.toContain(secret);
  }

  await page.keyboard.press('Escape');
  await page.getByTestId('auth-sign-out').click();
  await expect(page.getByTestId('auth-status')).toHaveText('signed out');
});

test('a reload forgets the sign-in, unless "Remember sign-in" is ticked', async ({ page }) => {
  await page.goto('/?server=/demo/mcp-auth');
  await signInViaPopup(page);
  await page.reload();
  await signInViaPopup(page);

  await page.getByTestId('auth-remember').check();
  await expect(page.getByTestId('auth-card')).toContainText('stored unencrypted');
  await page.reload();
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await expect(page.getByTestId('auth-status')).toHaveText('signed in');
  await expect(page.getByTestId('auth-remember')).toBeChecked();

  await page.getByTestId('auth-remember').uncheck();
  expect(await page.evaluate(() => localStorage.getItem('taskscope.rememberedSignIns'))).toBeNull();
});

test('a tool that needs more scope: sign in again (step-up), and the call goes on to its result', async ({
  page,
}) => {
  await page.goto('/?server=/demo/mcp-auth');
  await signInViaPopup(page);
  await page.getByTestId('tool-flaky_job').click();
  const form = page.getByTestId('run-form');
  await form.locator('#arg-failAfterMs').fill('300');
  await form.locator('#arg-reason').fill('scoped');
  await form.getByRole('button', { name: 'Run as task' }).click();
  await expect(page.getByTestId('auth-status')).toHaveText('more scope asked');
  const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('auth-sign-in').click()]);
  // The union of what was granted and what the 403 asked for.
  await expect(popup.locator('li')).toHaveCount(3);
  await expect(popup.locator('ul')).toContainText('tools:flaky');
  await allowAndClose(popup);
  await expect(page.getByTestId('auth-scopes')).toContainText('tools:flaky');
  await expect(page.getByTestId('task-detail').getByTestId('result')).toContainText(
    'flaky_job failed: scoped',
  );
});
