import { startDemoReceiver } from '../helpers/receivers';
import { storedHistory, storedInbox, storedPollCount } from '../helpers/history-page';
import { cancelTask, pollCount as observationCount, taskRow } from '../helpers/task-page';
import { answerQuestion, connect, connectionStatus as status, expect, runTask, test } from './fixtures';

/**
 * Live receivers as only a browser shows them: a reload and a second tab (sessionStorage, IndexedDB, the Worker
 * started again), a receiver without CORS reached through the local relay, saved receivers, a full quota.
 *
 * What the engine does on its own is checked below the page: a receiver killed and restarted in
 * test/integration/recovery.test.ts and recovery-history.test.ts (its notes drawn in SessionNote.test.tsx and
 * connection-notes.test.tsx); a wrong path and a web page in test/integration/connection-refusals.test.ts (each
 * message's pane in connection-notes.test.tsx); the CORS diagnosis needs a page's origin: the relay test here.
 */

/**
 * A slow_job that works far longer than any test here may take (10 min), and is kept as long (its ttl: the
 * demo's default of 60 s is shorter than a test may run on a slow machine): it is live for as long as a test
 * needs it, however slow the machine, and the test ends it itself with Cancel.
 */
const LIVE_FOR_THE_WHOLE_TEST = { durationMs: '600000', steps: '2', pollIntervalMs: '200', ttlMs: '600000' };

test.describe.configure({ timeout: 60_000 });

test('a reload mid-task takes up the same session: tasks stay live with their history, a question asks again, and a new task gets only its own progress', async ({
  connected: page,
}) => {
  // Two tasks live across the reload and a third after it: 20 s alone, twice that beside a busy loop.
  test.setTimeout(120_000);
  const sessionId = (await page.getByTestId('session-id').textContent()) ?? '';
  const question = 'Still there after a reload?';
  const { detail, taskId: asking } = await runTask(page, 'ask_user', { question });
  await expect(detail.getByTestId('elicitation-form')).toContainText(question);

  // A job that reports progress every second for 100 s, longer than the test (and kept 10 min): live across
  // the reload, and reporting on its old progress token all through the new task's life below.
  const { taskId: alpha } = await runTask(page, 'slow_job', {
    durationMs: '100000',
    steps: '100',
    pollIntervalMs: '300',
    ttlMs: '600000',
    label: 'alpha-job',
  });
  await expect(detail.getByTestId('task-progress')).toContainText(/^[1-9]\d*\/100/);
  await expect.poll(() => observationCount(page)).toBeGreaterThan(5);
  const before = await observationCount(page);
  // History is written every 250 ms, later on a busy machine: reload once it holds what the page showed.
  await expect.poll(() => storedPollCount(page, alpha)).toBeGreaterThanOrEqual(before);
  await expect.poll(() => storedInbox(page)).toContain(question);

  await page.reload();
  await expect(status(page)).toHaveText('Connected');
  await expect(page.getByTestId('session-id')).toHaveText(sessionId);
  await expect(page.getByTestId('session-note')).toContainText('Session resumed');
  await expect(detail.getByTestId('task-id')).toHaveText(alpha);
  // What was seen before the reload is there, and polling goes on in the same session: new polls.
  expect(await observationCount(page)).toBeGreaterThanOrEqual(before);
  await expect.poll(() => observationCount(page)).toBeGreaterThan(before);
  // Its bar says its value is from before the reload: this page never learnt its progress token.
  await expect(detail.getByTestId('task-progress')).toHaveAttribute('data-stale', 'true');
  await expect(page.getByTestId('progress-reported')).toContainText('before this page loaded');

  // The question asks again, and the answer completes the task.
  await taskRow(page, asking).click();
  await answerQuestion(detail, { Answer: 'yes' });
  await expect(detail.getByTestId('result')).toContainText('You answered: yes');

  // A new task after the reload gets only its own progress, though the first reports on its old token.
  const { taskId: beta } = await runTask(page, 'slow_job', {
    durationMs: '3000',
    steps: '3',
    pollIntervalMs: '300',
    label: 'beta-job',
  });
  expect(beta).not.toBe(alpha);
  await expect(detail.getByTestId('result')).toContainText('Finished beta-job');
  await expect(detail.getByTestId('task-progress')).toContainText('Done: beta-job');
  // The first task reported on its old token every second of the second's 3 s: none of its reports landed on
  // the second task.
  await expect(detail.getByTestId('task-progress')).toContainText('Done: beta-job');
  const observations = detail.getByTestId('observations');
  await expect(observations).toContainText('beta-job');
  await expect(observations).not.toContainText('alpha-job');
  // The first task is still followed in the resumed session, to its end; its bar still says where its value
  // is from.
  await taskRow(page, alpha).click();
  await expect(detail.getByTestId('task-id')).toHaveText(alpha);
  await expect(detail.getByTestId('task-progress')).toHaveAttribute('data-stale', 'true');
  await cancelTask(page, alpha);
  await expect(detail.getByTestId('session-ended')).toHaveCount(0);
});

test('a duplicated tab does not steal the session; a ?task= link in another tab shows the stored history and offers to follow it', async ({
  connected: page,
  context,
}) => {
  // Three pages connect one after another (30 s alone; over the minute beside a busy loop, every step passing).
  test.setTimeout(120_000);
  const sessionId = (await page.getByTestId('session-id').textContent()) ?? '';
  const { taskId } = await runTask(page, 'slow_job', LIVE_FOR_THE_WHOLE_TEST);
  await expect.poll(() => observationCount(page)).toBeGreaterThan(2);

  // A duplicated tab starts with a copy of the first tab's sessionStorage.
  const stored = await page.evaluate(() => JSON.stringify(Object.entries(sessionStorage)));
  const duplicate = await context.newPage();
  await duplicate.addInitScript((entries: string) => {
    if (sessionStorage.length > 0) return;
    for (const [key, value] of JSON.parse(entries) as Array<[string, string]>)
      sessionStorage.setItem(key, value);
  }, stored);
  await connect(duplicate);
  await expect(duplicate.getByTestId('session-id')).not.toHaveText(sessionId);
  await expect(duplicate.getByTestId('session-id')).not.toHaveText('');
  // The first tab keeps its session and its task keeps going.
  await expect(page.getByTestId('session-id')).toHaveText(sessionId);
  const polls = await observationCount(page);
  await expect.poll(() => observationCount(page)).toBeGreaterThan(polls);
  await duplicate.close();

  const linked = await context.newPage();
  await connect(linked, undefined, { query: `task=${encodeURIComponent(taskId)}` });
  const detail = linked.getByTestId('task-detail');
  await expect(detail.getByTestId('task-id')).toHaveText(taskId);
  await expect(detail.getByTestId('other-session')).toContainText('belongs to another session');
  expect(await observationCount(linked)).toBeGreaterThan(0);
  await expect(detail.getByRole('button', { name: 'Follow it here' })).toBeVisible();
  await linked.close();
  await cancelTask(page, taskId);
});

test('a receiver without CORS is said to be one, and works end to end through the local relay once the person confirms it', async ({
  page,
}) => {
  const noCors = await startDemoReceiver({ cors: false });
  const relayed: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/relay')) relayed.push(request.url());
  });
  try {
    await connect(page, noCors.url, { status: 'Connection failed' });
    // Only a page's origin meets CORS: the engine's probe (a no-cors request) tells it from a dead receiver.
    await expect(page.getByTestId('connection-error')).toContainText('CORS');
    await expect(page.getByTestId('relay-offer')).toBeVisible();
    // A ?server= link alone never makes the relay fetch anything: nothing went to it before the person's yes.
    expect(relayed).toEqual([]);
    await page.getByTestId('relay-offer').click();
    await page.getByTestId('relay-confirm').click();
    await expect(status(page)).toContainText('Connected');
    await expect(page.getByTestId('via-relay')).toBeVisible();
    const { detail } = await runTask(page, 'slow_job', {
      durationMs: '1200',
      steps: '2',
      pollIntervalMs: '200',
      label: 'relayed',
    });
    await expect(detail.getByTestId('result')).toContainText('Finished relayed');
    // Polled through the relay: at least the poll that saw it end (how many saw it working is the machine's).
    expect(await observationCount(page)).toBeGreaterThan(0);
    // The choice is remembered for this receiver: a reload goes through the relay again.
    await page.reload();
    await expect(page.getByTestId('via-relay')).toBeVisible();
    await expect(status(page)).toContainText('Connected');
    // The token never shows in what the page keeps or shows.
    const token = await page.evaluate(async () => {
      const r = await fetch('/relay/token', { headers: { 'X-Taskscope-Token-Request': '1' } });
      return ((await r.json()) as { token: string }).token;
    });
    await page.getByRole('button', { name: /Traffic/ }).click();
    await expect(page.getByRole('region', { name: 'Traffic' })).not.toContainText(token);
    expect(relayed.length).toBeGreaterThan(0);
    const storage = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
    expect(storage).not.toContain(token);
    expect(await storedHistory(page)).toContain('tasks/get');
    expect(await storedHistory(page)).not.toContain(token);
  } finally {
    await noCors.close();
  }
});

test('saved receivers: headers stay for the tab unless remembered, then are kept with a warning', async ({
  connected: page,
  context,
}) => {
  await page.getByTestId('headers-button').click();
  await page.locator('#headers').fill('X-Demo-Key: s3cret');
  await page.getByRole('button', { name: 'Reconnect' }).click();
  await expect(status(page)).toHaveText('Connected');
  await page.reload();
  await expect(status(page)).toHaveText('Connected');
  // Same tab: the headers are still applied.
  await expect(page.getByTestId('headers-button')).toContainText('1');

  const other = await context.newPage();
  await connect(other);
  // Another tab: not remembered, so not there.
  await expect(other.getByTestId('headers-button')).not.toContainText('1');
  await other.getByTestId('saved-receivers-button').click();
  await expect(other.getByTestId('saved-receiver-row')).toHaveCount(1);
  await other.close();

  await page.getByTestId('saved-receivers-button').click();
  await page.getByTestId('remember-headers').check();
  await expect(page.getByTestId('remember-warning')).toContainText('unencrypted');
  const third = await context.newPage();
  await connect(third);
  await expect(third.getByTestId('headers-button')).toContainText('1');
  await third.close();
});

test('a full storage quota is said, and nothing the page shows is lost', async ({
  page,
  context,
  baseURL,
}) => {
  // The quota goes down before the page's first write: Chromium lets a storage bucket spend the space it last
  // heard of for up to 30 s (BucketContext::kBucketSpaceCacheTimeLimit), so a quota lowered after a write bites
  // anywhere within that window and the test would race it.
  const cdp = await context.newCDPSession(page);
  const origin = new URL(baseURL ?? '').origin;
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 1 });
  await connect(page);
  const { detail } = await runTask(page, 'slow_job', {
    durationMs: '800',
    steps: '2',
    pollIntervalMs: '100',
    label: 'quota',
  });
  await expect(page.getByTestId('history-problem')).toContainText(/quota/i);
  await expect(detail.getByTestId('result')).toContainText('Finished quota');
  // What the page shows is kept in memory: the polls, at least the one that saw it end.
  expect(await observationCount(page)).toBeGreaterThan(0);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin });
});
