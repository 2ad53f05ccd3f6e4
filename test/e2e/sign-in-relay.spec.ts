import { expect, test, type Page } from '@playwright/test';
import { startCorslessDemoAuth } from '../helpers/demo-auth';
import { runTool } from '../helpers/task-page';

/** Allow on the consent page; the popup closes itself once the callback has handed the code over. */
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

test('a receiver and authorization server without CORS: sign in through the local relay and run a task', async ({
  page,
  context,
}) => {
  const upstream = await startCorslessDemoAuth();
  try {
    // What the page itself sent to the servers' origin (the popup's pages aside): nothing once relayed.
    const direct: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(upstream.url)) direct.push(`${request.method()} ${request.url()}`);
    });
    const relayed: string[] = [];
    context.on('request', (request) => {
      if (new URL(request.url()).pathname === '/relay')
        relayed.push(new URL(request.headers()['x-taskscope-target'] ?? '').pathname);
    });

    await page.goto(`/?server=${encodeURIComponent(upstream.receiverUrl)}`);
    await page.getByTestId('relay-offer').click();
    await page.getByTestId('relay-confirm').click();
    await expect(page.getByTestId('auth-status')).toHaveText('sign-in needed');
    direct.length = 0;

    const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('auth-sign-in').click()]);
    await expect(popup.getByRole('heading')).toHaveText('Taskscope demo authorization server');
    await allowAndClose(popup);
    await expect(page.getByTestId('auth-status')).toHaveText('signed in');
    await expect(page.getByTestId('connection-status')).toContainText('Connected');
    await expect(page.getByTestId('via-relay')).toBeVisible();
    await expect(page.getByTestId('auth-issuer')).toHaveText(`${upstream.url}/as`);

    await runTool(page, 'slow_job', {
      durationMs: '400',
      steps: '2',
      pollIntervalMs: '200',
      label: 'relayed',
    });
    await expect(page.getByTestId('task-detail').getByTestId('result')).toContainText('Finished relayed');

    // Discovery, registration and the token went through the relay, as the MCP requests did.
    expect(relayed).toEqual(
      expect.arrayContaining([
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/oauth-authorization-server/as',
        '/as/register',
        '/as/token',
        '/mcp',
      ]),
    );
    expect(direct).toEqual([]);
  } finally {
    await upstream.close();
  }
});

test('an authorization server on another origin is asked about first; not allowed, nothing goes there', async ({
  page,
  context,
}) => {
  const toOther: string[] = [];
  context.on('request', (request) => {
    if (new URL(request.url()).hostname === 'localhost') toOther.push(request.url());
  });
  await page.goto(`/?server=${encodeURIComponent('/demo/mcp-auth?faults=other-origin')}`);
  const origin = new URL(page.url()).origin.replace('127.0.0.1', 'localhost');
  await expect(page.getByTestId('auth-status')).toHaveText('allow an origin?');
  await expect(page.getByTestId('auth-origin')).toHaveText(origin);
  expect(toOther).toEqual([]);
  await page.getByTestId('auth-origin-refuse').click();
  await expect(page.getByTestId('auth-status')).toHaveText('sign-in failed');
  await expect(page.getByTestId('auth-error')).toContainText(
    `${origin}, named by the receiver's metadata, was not allowed`,
  );
  expect(toOther).toEqual([]);

  // Try again, and allow it this time: the sign-in goes on there.
  await page.getByTestId('auth-card').getByRole('button', { name: 'Try again' }).click();
  await page.getByTestId('auth-origin-allow').click();
  await expect(page.getByTestId('auth-status')).toHaveText('sign-in needed');
  const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('auth-sign-in').click()]);
  await expect(popup.getByRole('heading')).toHaveText('Taskscope demo authorization server');
  await allowAndClose(popup);
  await expect(page.getByTestId('auth-status')).toHaveText('signed in');
  await expect(page.getByTestId('auth-issuer')).toHaveText(`${origin}/demo/auth/faults/other-origin`);
});
