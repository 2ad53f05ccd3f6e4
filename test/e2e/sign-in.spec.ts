import type { Page } from '@playwright/test';
import { allowSignIn, connect, connectionStatus, downloaded, expect, runTask, test } from './fixtures';

/**
 * The sign-in popup and what the page keeps of a sign-in. The flow's steps (discovery, registration, PKCE,
 * refresh, step-up, an authorization server on another origin) are the engine's, checked in
 * test/integration/auth-flow.test.ts and engine-sign-in.test.ts; here, what only a browser shows.
 */

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
  await allowSignIn(popup);
  await expect(page.getByTestId('auth-status')).toHaveText('signed in');
  await expect(connectionStatus(page)).toHaveText('Connected');
}

test('sign in through the popup, run a task, no secret kept anywhere; a reload forgets it unless remembered; sign out', async ({
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

  // Not connected until signed in.
  await connect(page, '/demo/mcp-auth', { status: /^(?!Connected$)/ });
  await expect(page.getByTestId('auth-status')).toHaveText('sign-in needed');
  await expect(connectionStatus(page)).not.toHaveText('Connected');
  await signInViaPopup(page);
  await expect(page.getByTestId('auth-issuer')).toHaveText(new URL('/demo/auth', page.url()).href);
  await expect(page.getByTestId('auth-client')).toContainText('registered dynamically');
  await expect(page.getByTestId('auth-scopes')).toHaveText('tools:run offline_access');
  await expect(page.getByTestId('auth-expires')).toContainText(/\d+ s/);

  const { detail } = await runTask(page, 'slow_job', {
    durationMs: '600',
    steps: '2',
    pollIntervalMs: '200',
    label: 'signed',
  });
  await expect(detail.getByTestId('result')).toContainText('Finished signed');

  // The steps are shown, redacted.
  await page.getByTestId('auth-steps').locator(':scope > summary').click();
  await expect(page.getByTestId('auth-step')).toHaveCount(7);

  // The flow's own exchanges are traffic of their own kind (redacted like the steps).
  await page.getByRole('button', { name: /^Traffic/ }).click();
  await page.getByTestId('traffic-kind').selectOption('auth');
  const signInRows = page.getByTestId('traffic-drawer').getByTestId('traffic-row');
  await expect(signInRows).toHaveCount(4);
  await expect(signInRows.first()).toContainText('oauth · sign-in');

  // Nothing of the sign-in is kept in storage, written to an export or shown.
  expect(secrets.size).toBeGreaterThanOrEqual(4);
  const stored = await everythingStored(page);
  const trace = await downloaded(page, 'export-trace');
  const har = await downloaded(page, 'export-har');
  const shown = await page.locator('body').innerText();
  for (const secret of secrets) {
    expect(stored).not.toContain(secret);
    expect(trace).not.toContain(secret);
    expect(har).not.toContain(secret);
    expect(shown).not.toContain(secret);
  }
  await page.keyboard.press('Escape');

  // So a reload forgets it: signed in again through the popup, then kept only once "Remember sign-in" is ticked.
  await page.reload();
  await signInViaPopup(page);
  await page.getByTestId('auth-remember').check();
  await expect(page.getByTestId('auth-card')).toContainText('stored unencrypted');
  await page.reload();
  await expect(connectionStatus(page)).toHaveText('Connected');
  await expect(page.getByTestId('auth-status')).toHaveText('signed in');
  await expect(page.getByTestId('auth-remember')).toBeChecked();
  await page.getByTestId('auth-remember').uncheck();
  expect(await page.evaluate(() => localStorage.getItem('taskscope.rememberedSignIns'))).toBeNull();

  await page.getByTestId('auth-sign-out').click();
  await expect(page.getByTestId('auth-status')).toHaveText('signed out');
});
