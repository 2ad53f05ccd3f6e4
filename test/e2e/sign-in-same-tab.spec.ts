import { connect, connectionStatus, expect, runTask, test } from './fixtures';

const TRIP_KEY = 'taskscope-sign-in-trip';

test('no popup: the sign-in page opens in this tab, and the page comes back where it was, signed in, keeping nothing', async ({
  page,
  context,
}) => {
  // Playwright never blocks popups: a blocker is window.open answering null.
  await page.addInitScript(() => {
    window.open = () => null;
  });
  // The code and the verifier, as they crossed the wire.
  const secrets = new Set<string>();
  context.on('request', (request) => {
    const url = new URL(request.url());
    const code = url.searchParams.get('code');
    if (url.pathname === '/oauth/callback' && code) secrets.add(code);
    if (url.pathname === '/demo/auth/token') {
      const form = new URLSearchParams(request.postData() ?? '');
      for (const name of ['code', 'code_verifier']) {
        const value = form.get(name);
        if (value) secrets.add(value);
      }
    }
  });

  await connect(page, '/demo/mcp-auth', { status: /^(?!Connected$)/ });
  await expect(page.getByTestId('auth-status')).toHaveText('sign-in needed');
  const address = page.url();
  await page.getByTestId('auth-sign-in').click();

  // The authorization server's page, in this very tab; the pending sign-in waits in this tab's storage.
  // Found by its name: until the tab has navigated, the page's own headings are there too.
  await expect(page.getByRole('heading', { name: 'Taskscope demo authorization server' })).toBeVisible();
  const kept = await page.evaluate((key) => sessionStorage.getItem(key), TRIP_KEY);
  expect(kept).toContain('codeVerifier');
  expect(kept).not.toContain('access_token');
  await page.getByRole('button', { name: 'Allow' }).click();

  // Back at the page's own address (no code in it), signed in and connected.
  await expect(page.getByTestId('auth-status')).toHaveText('signed in');
  await expect(connectionStatus(page)).toHaveText('Connected');
  expect(page.url()).toBe(address);
  await expect(page.getByTestId('auth-client')).toContainText('registered dynamically');
  const { detail } = await runTask(page, 'slow_job', {
    durationMs: '400',
    steps: '2',
    pollIntervalMs: '200',
    label: 'here',
  });
  await expect(detail.getByTestId('result')).toContainText('Finished here');

  // Every step, from before the trip and after it.
  await page.getByTestId('auth-steps').locator(':scope > summary').click();
  await expect(page.getByTestId('auth-step')).toHaveCount(7);

  // The trip was used once and is gone: neither the verifier nor the code is kept anywhere.
  expect(secrets.size).toBeGreaterThanOrEqual(2);
  const stored = await page.evaluate(() => JSON.stringify([{ ...localStorage }, { ...sessionStorage }]));
  expect(stored).not.toContain(TRIP_KEY);
  for (const secret of secrets) expect(stored).not.toContain(secret);
});
