import { expect, test, type Page } from '@playwright/test';
import {
  startHostileReceiver,
  type CaseName,
  type HostileReceiver,
} from '../../src/devserver/hostile/receiver';

/**
 * Taskscope against a receiver that misbehaves on purpose, one case per test, started once for the file.
 * For each: the requests the receiver counts stay within twice what the rules allow, the app is not blank,
 * and the task or the connection says what is wrong, all within 10 s of opening.
 */
let hostile: HostileReceiver;
test.beforeAll(async () => {
  hostile = await startHostileReceiver();
});
test.afterAll(async () => {
  await hostile.close();
});

async function open(page: Page, name: CaseName) {
  hostile.reset(name);
  await page.goto(`/?server=${encodeURIComponent(hostile.caseUrl(name))}`);
  await expect(page.getByTestId('connection-status')).toHaveText(/^(Connected|Degraded)/);
}

async function expectAlive(page: Page) {
  // Not blank, and the main thread answers at once.
  await expect(page.locator('header').first()).toContainText('Taskscope');
  const started = Date.now();
  await page.evaluate(() => 1);
  expect(Date.now() - started).toBeLessThan(1000);
}

const gets = (name: CaseName) => hostile.counts(name).methods['tasks/get'] ?? 0;

async function openTask(page: Page, taskId?: string) {
  const row = taskId
    ? page.locator(`[data-testid="task-row"][data-task-id="${taskId}"]`)
    : page.getByTestId('task-row').first();
  await row.click();
  await expect(page.getByTestId('task-detail')).toBeVisible();
  return page.getByTestId('task-detail');
}

test.describe.configure({ timeout: 45_000 });

test('pollInterval 1e12 and 2^31 ms: no poll at all, the interval shown as years, Poll now asks once', async ({
  page,
}) => {
  await open(page, 'huge-interval');
  const detail = await openTask(page, 'interval-1e12');
  await expect(detail.getByTestId('interval-in-force')).toContainText('31.7 years');
  await expect(detail.getByTestId('observations')).toContainText('over an hour');
  await page.waitForTimeout(3000);
  expect(gets('huge-interval')).toBe(0);
  await detail.getByTestId('poll-now').click();
  await expect.poll(() => gets('huge-interval')).toBe(1);
  await page.waitForTimeout(2000);
  expect(gets('huge-interval')).toBe(1);
  await expectAlive(page);
});

for (const name of ['retry-after-http', 'retry-after-rpc'] as const) {
  test(`${name}: a Retry-After of 4,000 s is honoured, and the task says it is rate limited`, async ({
    page,
  }) => {
    await open(page, name);
    const detail = await openTask(page);
    await expect(detail).toContainText('Rate limited');
    await page.waitForTimeout(4000);
    // One poll per task, then a wait of over an hour: twice that at most.
    expect(gets(name)).toBeLessThanOrEqual(2);
    await expectAlive(page);
  });
}

test('sse-retry-zero: stream reconnects keep a floor and back off, and the receiver card says why', async ({
  page,
}) => {
  await open(page, 'sse-retry-zero');
  await expect(page.getByTestId('stream-note')).toContainText('notification stream closed', {
    timeout: 10_000,
  });
  const opens = hostile.counts('sse-retry-zero').GET;
  await page.waitForTimeout(5000);
  // 1, 2, 4, 8 s apart: at most a couple more in 5 s, where retry: 0 asked for thousands.
  expect(hostile.counts('sse-retry-zero').GET - opens).toBeLessThanOrEqual(4);
  await expectAlive(page);
});

test('a result nested 100,000 deep: shown cut, with a warning, and the app keeps working', async ({
  page,
}) => {
  await open(page, 'deep-result');
  const detail = await openTask(page);
  await expect(detail.getByTestId('observations')).toContainText('nested deeper than 64 levels');
  // The result view (loaded on demand) has drawn the cut result with its warning, not an error.
  await expect(detail.getByTestId('result')).toContainText('nested deeper than 64 levels', {
    timeout: 10_000,
  });
  await expect(page.getByTestId('render-error')).toHaveCount(0);
  // A completed task: one tasks/result, no polling.
  expect(hostile.counts('deep-result').methods['tasks/result']).toBe(1);
  expect(gets('deep-result')).toBeLessThanOrEqual(2);
  await expectAlive(page);
});

test('a 20 MB statusMessage: cut to 4,000 characters and flagged, polling at its interval', async ({
  page,
}) => {
  await open(page, 'huge-status');
  const detail = await openTask(page);
  await expect(detail.getByTestId('observations')).toContainText('cut to 4000', { timeout: 10_000 });
  expect((await detail.getByTestId('status-message').innerText()).length).toBeLessThanOrEqual(4001);
  const before = gets('huge-status');
  await page.waitForTimeout(4000);
  // pollInterval 1 s: about four polls; twice that at most.
  expect(gets('huge-status') - before).toBeLessThanOrEqual(8);
  await expectAlive(page);
});

test('a flood of pushes for unknown tasks: 200 followed, the rest counted and offered', async ({ page }) => {
  await open(page, 'notification-flood');
  await expect(page.getByTestId('untracked-seen')).toContainText('more task ids seen', { timeout: 10_000 });
  const all = await page.getByRole('button', { name: /^all \d+/ }).innerText();
  expect(Number(/\d+/.exec(all)?.[0])).toBeLessThanOrEqual(201);
  await expectAlive(page);
});

for (const [name, limit] of [
  ['endless-list', 100],
  ['huge-list', 100],
] as const) {
  test(`${name}: tasks/list paging stops at its cap and says so`, async ({ page }) => {
    await open(page, name);
    await expect(page.getByTestId('list-stopped')).toContainText('stopped', { timeout: 10_000 });
    expect(hostile.counts(name).methods['tasks/list'] ?? 0).toBeLessThanOrEqual(limit);
    await expectAlive(page);
  });
}

for (const name of ['silent-get', 'endless-sse-answer'] as const) {
  test(`${name}: a poll that never ends is aborted at its deadline; the task and the header say so`, async ({
    page,
  }) => {
    await open(page, name);
    const detail = await openTask(page);
    await expect(detail).toContainText('Receiver not answering', { timeout: 10_000 });
    await expect(page.getByTestId('connection-status')).toContainText('Degraded', { timeout: 10_000 });
    // A poll at 1 s, aborted at 6 s, the next after a backoff: a handful, never a storm.
    expect(gets(name)).toBeLessThanOrEqual(4);
    await expectAlive(page);
  });
}

test('an answer with another JSON-RPC id is reported at once, not after a minute', async ({ page }) => {
  await open(page, 'wrong-id');
  const detail = await openTask(page);
  await expect(detail).toContainText('must carry its request', { timeout: 5000 });
  // Each wrong answer is one failed poll, then backoff: 1, 2, 4 s apart, never a storm.
  expect(gets('wrong-id')).toBeLessThanOrEqual(6);
  await expectAlive(page);
});

test('one task stamped a day ahead: flagged, and the other task’s TTL still counts down from 10 min', async ({
  page,
}) => {
  const opened = Date.now();
  await open(page, 'future-created');
  const normal = await openTask(page, 'normal');
  await expect(normal.getByTestId('ttl-countdown')).toHaveText(/^(9(\.\d)?|10) min/);
  const ahead = await openTask(page, 'from-tomorrow');
  await expect(ahead.getByTestId('observations')).toContainText("ahead of this receiver's clock", {
    timeout: 10_000,
  });
  // Neither task was taken for expired: no purge probes, just polls at 1 s for two live tasks.
  const seconds = (Date.now() - opened) / 1000;
  expect(gets('future-created')).toBeLessThanOrEqual(2 * 2 * Math.ceil(seconds));
  await expectAlive(page);
});

test('ttl 1e300: shown as effectively none, not as a number no one can read', async ({ page }) => {
  await open(page, 'ttl-absurd');
  await expect(page.getByTestId('task-row').first()).toContainText('effectively none');
  const detail = await openTask(page);
  await expect(detail.getByTestId('ttl-countdown')).toHaveText('ttl 1.00e+300 ms — effectively none');
  expect(gets('ttl-absurd')).toBeLessThanOrEqual(2 * 10);
  await expectAlive(page);
});

test('1,000 elicitation requests: 50 wait for a person, the rest are refused and counted', async ({
  page,
}) => {
  await open(page, 'elicitation-flood');
  await page.getByTestId('inbox-button').click();
  await expect(page.getByTestId('inbox-refused')).toContainText('requests refused', { timeout: 10_000 });
  await expect(page.getByTestId('inbox-view')).toContainText('Waiting for you (50)');
  // One tasks/result carried all the questions; the refusals went back as answers, one each at most.
  expect(hostile.counts('elicitation-flood').methods['tasks/result']).toBe(1);
  expect(hostile.counts('elicitation-flood').responses).toBeLessThanOrEqual(1000);
  await expectAlive(page);
});

test('an elicitation with 10,000 fields: not drawn field by field; answered as JSON', async ({ page }) => {
  await open(page, 'wide-elicitation');
  await page.getByTestId('inbox-button').click();
  await expect(page.getByTestId('elicitation-too-wide')).toContainText('10,000 fields', { timeout: 10_000 });
  expect(hostile.counts('wide-elicitation').methods['tasks/result']).toBe(1);
  await expectAlive(page);
});
