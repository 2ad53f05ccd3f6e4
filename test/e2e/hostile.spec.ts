import { connect, expect, test } from './fixtures';
import { startHostileReceiver, type HostileReceiver } from '../servers/hostile/receiver';
import { startUserDocsReceiver, type UserDocsReceiver } from '../helpers/user-docs-receiver';

/**
 * What only a browser shows of receivers that misbehave: a CORS refusal (Node's fetch has none) said as such,
 * and a page that keeps drawing after a result nested 100,000 deep has crossed from the Worker. The engine's
 * side of every hostile case (poll counts, Retry-After, backoff, caps, deadlines, floods) is held in
 * test/integration/hostile-engine.test.ts; how each record is drawn, in the components' jsdom tests.
 */
let hostile: HostileReceiver;
let withoutCors: UserDocsReceiver;
test.beforeAll(async () => {
  hostile = await startHostileReceiver();
  withoutCors = await startUserDocsReceiver();
});
test.afterAll(async () => {
  await hostile.close();
  await withoutCors.close();
});

test('the page survives hostile receivers: no CORS is named as such; a result nested 100,000 deep is drawn cut, with a warning, and the page still draws', async ({
  page,
}) => {
  await connect(page, withoutCors.url, { status: 'Connection failed' });
  await expect(page.getByRole('alert')).toContainText('CORS');

  hostile.reset('deep-result');
  await connect(page, hostile.caseUrl('deep-result'), { status: /^(Connected|Degraded)/ });
  await page.getByTestId('task-row').first().click();
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('observations')).toContainText('nested deeper than 64 levels');
  // The result view (loaded on demand) has drawn the cut result with its warning, not an error.
  await expect(detail.getByTestId('result')).toContainText('nested deeper than 64 levels');
  await expect(page.getByTestId('render-error')).toHaveCount(0);
  expect(hostile.counts('deep-result').methods['tasks/result']).toBe(1);
  // Not blank, and the main thread still draws: a frozen one never answers, and the test times out.
  await expect(page.locator('header').first()).toContainText('Taskscope');
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
});
