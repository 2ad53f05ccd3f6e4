import { startCorslessDemoAuth } from '../helpers/demo-auth';
import { allowSignIn, connectionStatus, expect, runTask, test } from './fixtures';

/**
 * Signing in through the local relay, end to end in the browser. The same path at the engine's boundary is in
 * test/integration/auth-relay.test.ts; an authorization server on another origin in auth-flow.test.ts.
 */

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
    await allowSignIn(popup);
    await expect(page.getByTestId('auth-status')).toHaveText('signed in');
    await expect(connectionStatus(page)).toContainText('Connected');
    await expect(page.getByTestId('via-relay')).toBeVisible();
    await expect(page.getByTestId('auth-issuer')).toHaveText(`${upstream.url}/as`);

    const { detail } = await runTask(page, 'slow_job', {
      durationMs: '400',
      steps: '2',
      pollIntervalMs: '200',
      label: 'relayed',
    });
    await expect(detail.getByTestId('result')).toContainText('Finished relayed');

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
