import { createServer, type Server } from 'node:http';
import { expect, test, type Page } from '@playwright/test';
import { startDemoReceiver } from '../helpers/receivers';
import { storedHistory, storedInbox, storedPollCount } from '../helpers/history-page';
import { cancelTask, pollCount as observationCount, runTool } from '../helpers/task-page';

/**
 * Live receivers as people debug them: reloads, a second tab, a receiver that restarts, one that is not an
 * MCP endpoint at all, one without CORS (reached through the local relay), saved receivers, a full quota.
 */

const status = (page: Page) => page.getByTestId('connection-status');

/**
 * A slow_job that works far longer than any test here may take (10 min), and is kept as long (its ttl: the
 * demo's default of 60 s had the receiver purge it under a test that ran past a minute on a loaded machine): it
 * is live for as long as a test needs it, however slow the machine, and the test ends it itself with Cancel.
 */
const LIVE_FOR_THE_WHOLE_TEST = { durationMs: '600000', steps: '2', pollIntervalMs: '200', ttlMs: '600000' };

test.describe.configure({ timeout: 60_000 });

test('a reload mid-task takes up the same session: the task stays live, keeps its history and is followed to its end', async ({
  page,
}) => {
  await page.goto('/');
  await expect(status(page)).toHaveText('Connected');
  const sessionId = await page.getByTestId('session-id').textContent();
  const taskId = await runTool(page, 'slow_job', LIVE_FOR_THE_WHOLE_TEST);
  await expect.poll(() => observationCount(page)).toBeGreaterThan(5);
  const before = await observationCount(page);
  // History is written every 250 ms, later on a busy machine: reload once it holds what the page showed.
  await expect.poll(() => storedPollCount(page, taskId)).toBeGreaterThanOrEqual(before);
  await page.reload();
  await expect(status(page)).toHaveText('Connected');
  await expect(page.getByTestId('session-id')).toHaveText(sessionId ?? '');
  await expect(page.getByTestId('session-note')).toContainText('Session resumed');
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('task-id')).toHaveText(taskId);
  // What was seen before the reload is there, and polling goes on in the same session: new polls.
  expect(await observationCount(page)).toBeGreaterThanOrEqual(before);
  await expect.poll(() => observationCount(page)).toBeGreaterThan(before);
  // Its end is seen there too (a result after a reload: the ask_user test below).
  await cancelTask(page, taskId);
  await expect(detail.getByTestId('status-headline')).toContainText('Cancelled');
  await expect(detail.getByTestId('session-ended')).toHaveCount(0);
});

test('a duplicated tab does not steal the session; a ?task= link in another tab shows the stored history and offers to follow it', async ({
  page,
  context,
}) => {
  // Three pages connect one after another (30 s alone; over the minute beside a busy loop, every step passing).
  test.setTimeout(120_000);
  await page.goto('/');
  await expect(status(page)).toHaveText('Connected');
  const sessionId = (await page.getByTestId('session-id').textContent()) ?? '';
  const taskId = await runTool(page, 'slow_job', LIVE_FOR_THE_WHOLE_TEST);
  await expect.poll(() => observationCount(page)).toBeGreaterThan(2);

  // A duplicated tab starts with a copy of the first tab's sessionStorage.
  const stored = await page.evaluate(() => JSON.stringify(Object.entries(sessionStorage)));
  const duplicate = await context.newPage();
  await duplicate.addInitScript((entries: string) => {
    if (sessionStorage.length > 0) return;
    for (const [key, value] of JSON.parse(entries) as Array<[string, string]>)
      sessionStorage.setItem(key, value);
  }, stored);
  await duplicate.goto('/');
  await expect(status(duplicate)).toHaveText('Connected');
  await expect(duplicate.getByTestId('session-id')).not.toHaveText(sessionId);
  await expect(duplicate.getByTestId('session-id')).not.toHaveText('');
  // The first tab keeps its session and its task keeps going.
  await expect(page.getByTestId('session-id')).toHaveText(sessionId);
  const polls = await observationCount(page);
  await expect.poll(() => observationCount(page)).toBeGreaterThan(polls);
  await duplicate.close();

  const linked = await context.newPage();
  await linked.goto(`/?task=${encodeURIComponent(taskId)}`);
  await expect(status(linked)).toHaveText('Connected');
  const detail = linked.getByTestId('task-detail');
  await expect(detail.getByTestId('task-id')).toHaveText(taskId);
  await expect(detail.getByTestId('other-session')).toContainText('belongs to another session');
  expect(await observationCount(linked)).toBeGreaterThan(0);
  await expect(detail.getByRole('button', { name: 'Follow it here' })).toBeVisible();
  await linked.close();
  await cancelTask(page, taskId);
});

test('a receiver that is killed shows unreachable, then recovers by itself after its restart, with the history kept', async ({
  page,
}) => {
  let receiver = await startDemoReceiver();
  const port = receiver.port;
  try {
    await page.goto(`/?server=${encodeURIComponent(receiver.url)}`);
    await expect(status(page)).toHaveText('Connected');
    const taskId = await runTool(page, 'slow_job', LIVE_FOR_THE_WHOLE_TEST);
    await expect.poll(() => observationCount(page)).toBeGreaterThan(2);
    await receiver.close();
    await expect(status(page)).toContainText('Unreachable');
    await expect(page.getByTestId('connection-error')).toContainText('not CORS');
    receiver = await startDemoReceiver({ port });
    await expect(status(page)).toHaveText('Connected', { timeout: 30_000 });
    await expect(page.getByTestId('session-note')).toContainText('Recovered at');
    const detail = page.getByTestId('task-detail');
    await expect(detail.getByTestId('task-id')).toHaveText(taskId);
    // The restarted receiver lost the task with the session: said as such, not as purged; history kept.
    await expect(detail.getByTestId('session-ended')).toContainText('ended');
    await expect(detail.getByTestId('session-ended')).toContainText('does not know this task');
    await expect(page.getByTestId('task-row').first()).toContainText('session ended');
    expect(await observationCount(page)).toBeGreaterThan(2);
  } finally {
    await receiver.close();
  }
});

test('a wrong path, a web page and a receiver without CORS each get their own message', async ({ page }) => {
  const html: Server = createServer((req, res) => {
    // A web page that even allows CORS: what it answers is still not an MCP endpoint.
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Headers', '*');
    res.setHeader('Access-Control-Allow-Methods', '*');
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    res
      .writeHead(200, { 'Content-Type': 'text/html' })
      .end('<!doctype html><title>Welcome</title><h1>Hi</h1>');
  });
  await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', resolve));
  const htmlPort = (html.address() as { port: number }).port;
  const noCors = await startDemoReceiver({ cors: false });
  try {
    await page.goto('/?server=%2Fnope%2Fmcp');
    await expect(status(page)).toHaveText('Connection failed');
    await expect(page.getByTestId('connection-error')).toContainText(/No MCP endpoint/i);
    await expect(page.getByTestId('connection-error')).toContainText('/nope/mcp');

    await page.goto(`/?server=${encodeURIComponent(`http://127.0.0.1:${htmlPort}/mcp`)}`);
    await expect(status(page)).toHaveText('Connection failed');
    await expect(page.getByTestId('connection-error')).toContainText('web page');
    await expect(page.getByRole('alert')).not.toContainText('Welcome');

    await page.goto(`/?server=${encodeURIComponent(noCors.url)}`);
    await expect(status(page)).toHaveText('Connection failed');
    await expect(page.getByTestId('connection-error')).toContainText('CORS');
    await expect(page.getByTestId('relay-offer')).toBeVisible();
  } finally {
    html.close();
    await noCors.close();
  }
});

test('a receiver without CORS works end to end through the local relay, once the person confirms it', async ({
  page,
}) => {
  const noCors = await startDemoReceiver({ cors: false });
  const relayed: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/relay')) relayed.push(request.url());
  });
  try {
    await page.goto(`/?server=${encodeURIComponent(noCors.url)}`);
    await expect(page.getByTestId('relay-offer')).toBeVisible();
    // A ?server= link alone never makes the relay fetch anything: nothing went to it before the person's yes.
    expect(relayed).toEqual([]);
    await page.getByTestId('relay-offer').click();
    await page.getByTestId('relay-confirm').click();
    await expect(status(page)).toContainText('Connected');
    await expect(page.getByTestId('via-relay')).toBeVisible();
    await runTool(page, 'slow_job', {
      durationMs: '1200',
      steps: '2',
      pollIntervalMs: '200',
      label: 'relayed',
    });
    const detail = page.getByTestId('task-detail');
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
  page,
  context,
}) => {
  await page.goto('/');
  await expect(status(page)).toHaveText('Connected');
  await page.getByTestId('headers-button').click();
  await page.locator('#headers').fill('X-Demo-Key: s3cret');
  await page.getByRole('button', { name: 'Reconnect' }).click();
  await expect(status(page)).toHaveText('Connected');
  await page.reload();
  await expect(status(page)).toHaveText('Connected');
  // Same tab: the headers are still applied.
  await expect(page.getByTestId('headers-button')).toContainText('1');

  const other = await context.newPage();
  await other.goto('/');
  await expect(status(other)).toHaveText('Connected');
  // Another tab: not remembered, so not there.
  await expect(other.getByTestId('headers-button')).not.toContainText('1');
  await other.getByTestId('saved-receivers-button').click();
  await expect(other.getByTestId('saved-receiver-row')).toHaveCount(1);
  await other.close();

  await page.getByTestId('saved-receivers-button').click();
  await page.getByTestId('remember-headers').check();
  await expect(page.getByTestId('remember-warning')).toContainText('unencrypted');
  const third = await context.newPage();
  await third.goto('/');
  await expect(status(third)).toHaveText('Connected');
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
  await page.goto('/');
  await expect(status(page)).toHaveText('Connected');
  await runTool(page, 'slow_job', { durationMs: '800', steps: '2', pollIntervalMs: '100', label: 'quota' });
  await expect(page.getByTestId('history-problem')).toContainText(/quota/i);
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('result')).toContainText('Finished quota');
  // What the page shows is kept in memory: the polls, at least the one that saw it end.
  expect(await observationCount(page)).toBeGreaterThan(0);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin });
});

test('a task waiting for input asks again after a reload, and the answer completes it', async ({ page }) => {
  await page.goto('/');
  await expect(status(page)).toHaveText('Connected');
  await page.getByTestId('tool-ask_user').click();
  await page.locator('#arg-question').fill('Still there after a reload?');
  await page.getByRole('button', { name: 'Run as task' }).click();
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('elicitation-form')).toContainText('Still there after a reload?');
  await expect.poll(() => storedInbox(page)).toContain('Still there after a reload?');
  await page.reload();
  await expect(page.getByTestId('session-note')).toContainText('Session resumed');
  const form = page.getByTestId('task-detail').getByTestId('elicitation-form');
  await expect(form).toContainText('Still there after a reload?');
  await form.getByLabel(/^Answer/).fill('yes');
  await form.getByRole('button', { name: 'Accept' }).click();
  await expect(page.getByTestId('task-detail').getByTestId('result')).toContainText('You answered: yes');
});
