import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { connect, connectionStatus, downloaded, expect, runTask, test } from './fixtures';
import { taskRow } from '../helpers/task-page';

/**
 * The replay paths end to end: the recorded demo from the empty task list, a live flow exported and opened
 * again, a trace refused or dropped on the page. The replay's pacing (1× against 4×, pause, play) is its clock's
 * and is checked with fake time in src/engine/trace/replay.test.ts; seeking through the engine in
 * test/integration/replay-seek.test.ts; the page's clock following the replay in
 * src/trace-files/open-trace.test.ts.
 */

interface DemoTask {
  taskId: string;
  tool?: string;
  status: string | null;
  lifecycle: string;
  result?: { value: { result: { content?: Array<{ type: string; text?: string }> } | null } };
}

/** The trace the empty task list links to, as shipped. */
const demo = JSON.parse(readFileSync(new URL('../../public/demo-trace.json', import.meta.url), 'utf8')) as {
  tasks: DemoTask[];
  receiver: { url: string };
};

/** What a task's row says of it: "purged" for a task the receiver purged, else its status. */
const shownStatus = (task: Pick<DemoTask, 'status' | 'lifecycle'>) =>
  task.lifecycle === 'purged' ? 'purged' : (task.status ?? '');

const firstText = (task: DemoTask) =>
  task.result?.value.result?.content?.find((c) => c.type === 'text')?.text ?? '';

/** Counts every request to the demo receiver, from the page and its engine Worker alike. */
function countDemoRequests(page: Page) {
  const seen: string[] = [];
  page.context().on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/demo/')) seen.push(request.url());
  });
  return seen;
}

async function expectEveryTaskAsRecorded(page: Page, tasks: DemoTask[]) {
  await expect(page.getByTestId('task-row')).toHaveCount(tasks.length);
  for (const task of tasks) {
    const row = taskRow(page, task.taskId);
    await expect(row, task.tool).toContainText(shownStatus(task));
    if (!task.result) continue;
    await row.click();
    await expect(page.getByTestId('result'), task.tool).toContainText(firstText(task).slice(0, 60));
  }
}

const bar = (page: Page) => page.getByTestId('replay-bar');

test('"Watch a recorded demo" replays at 1× with its most telling task open, instantly to its end on request, with no request to a receiver; the header offers the live receiver', async ({
  page,
}) => {
  const requests = countDemoRequests(page);
  await connect(page);
  // The counter sees the engine Worker's requests: live, the dashboard has asked the demo receiver already.
  expect(requests.length).toBeGreaterThan(0);
  const live = await page.locator('#server-url').inputValue();
  expect(live).toMatch(/\/demo\/mcp$/);
  await page.getByTestId('demo-trace-link').click();
  await expect(bar(page)).toBeVisible();
  requests.length = 0;
  await expect(page.getByTestId('replay-speed-1')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('replay-label')).toContainText('no receiver is contacted');
  // The recording's date in the app's one 24-hour form.
  await expect(page.getByTestId('replay-label')).toContainText(/recorded \d{4}-\d\d-\d\d \d\d:\d\d:\d\d /);
  // The task with the most to show (statuses, progress, a log line, its result) is open from the start, while
  // the recording still plays (at 1× it takes its 11 s).
  const featured = demo.tasks[0] as DemoTask;
  await expect(page.getByTestId('task-id')).toHaveText(featured.taskId);
  await expect(page.getByTestId('task-detail').getByTestId('timeline')).toBeVisible();
  await expect(bar(page)).toHaveAttribute('data-ended', 'false');
  // The bar names the recording's receiver (a port long closed); the header's field keeps the live one.
  await expect(page.getByTestId('replay-label')).toContainText(demo.receiver.url);
  expect(demo.receiver.url).not.toBe(live);
  await expect(page.locator('#server-url')).toHaveValue(live);
  await expect(page.getByRole('button', { name: 'Reconnect' })).toHaveCount(0);
  // The address names what is on screen, so a reload opens the same: the recording, with that task.
  const params = new URL(page.url()).searchParams;
  expect(params.get('trace')).toBe('/demo-trace.json');
  expect(params.get('task')).toBe(featured.taskId);
  await page.reload();
  await expect(bar(page)).toBeVisible();
  await expect(page.getByTestId('task-id')).toHaveText(featured.taskId);

  await page.getByTestId('replay-speed-instant').click();
  await expect(bar(page)).toHaveAttribute('data-ended', 'true');
  await expectEveryTaskAsRecorded(page, demo.tasks);
  // The question asked during the recording is on the task's timeline.
  const asking = demo.tasks.find((t) => t.tool === 'ask_user') as DemoTask;
  await taskRow(page, asking.taskId).click();
  await expect(page.getByTestId('timeline').locator('[data-status="input_required"]')).toBeVisible();
  // Live-only actions are off: nothing to run, no cancel, no answering the recorded question.
  await page.getByTestId('tool-slow_job').click();
  await expect(page.getByRole('button', { name: 'Run as task' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Cancel task' })).toHaveCount(0);
  // The scrubber from the keyboard: back to the start, it plays again; instant, to the same end (what a seek
  // fills in: test/integration/replay-seek.test.ts).
  const scrubber = page.getByTestId('replay-scrubber');
  await scrubber.focus();
  await scrubber.press('Home');
  await expect(bar(page)).toHaveAttribute('data-ended', 'false');
  await page.getByTestId('replay-speed-instant').click();
  await expect(bar(page)).toHaveAttribute('data-ended', 'true');
  await expect(page.getByTestId('task-row')).toHaveCount(demo.tasks.length);
  expect(requests).toEqual([]);

  // Connect leaves the replay for the live receiver.
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(bar(page)).toHaveCount(0);
  await expect(connectionStatus(page)).toHaveText('Connected');
  await expect(page.locator('#server-url')).toHaveValue(live);
});

test('a live flow exported and opened again replays to the same tasks, statuses and results', async ({
  connected: page,
}) => {
  await runTask(page, 'slow_job', {
    durationMs: '1500',
    steps: '3',
    pollIntervalMs: '300',
    label: 'exported',
  });
  await runTask(page, 'flaky_job', { failAfterMs: '700', reason: 'disk full' });
  const rows = page.getByTestId('task-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: 'completed' })).toHaveCount(1, { timeout: 20_000 });
  await expect(rows.filter({ hasText: 'failed' })).toHaveCount(1);
  const live: Array<{ taskId: string; status: string; result: string }> = [];
  for (const row of await rows.all()) {
    await row.click();
    const result = page.getByTestId('result');
    await expect(result).toBeVisible();
    live.push({
      taskId: (await row.getAttribute('data-task-id')) as string,
      status: (await row.textContent())?.includes('completed') ? 'completed' : 'failed',
      result: ((await result.textContent()) ?? '').trim(),
    });
  }

  const trace = await downloaded(page, 'export-trace');
  const requests = countDemoRequests(page);
  await page.getByTestId('open-trace-input').setInputFiles({
    name: 'exported.trace.json',
    mimeType: 'application/json',
    buffer: Buffer.from(trace),
  });
  await expect(bar(page)).toBeVisible();
  await page.getByTestId('replay-speed-instant').click();
  await expect(bar(page)).toHaveAttribute('data-ended', 'true');
  await expect(rows).toHaveCount(2);
  expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-task-id')))).toEqual(
    live.map((t) => t.taskId),
  );
  for (const task of live) {
    const row = taskRow(page, task.taskId);
    await expect(row).toContainText(task.status);
    await row.click();
    await expect(page.getByTestId('result')).toHaveText(task.result);
  }
  expect(requests).toEqual([]);
});

test('a trace is opened from this origin only, a malformed one is refused with its reasons, and one dropped on the page replays', async ({
  page,
}) => {
  await page.goto('/?trace=https://example.com/evil.json');
  await expect(page.getByTestId('trace-errors')).toContainText("this page's own origin");
  await expect(bar(page)).toHaveCount(0);
  await page.getByTestId('open-trace-input').setInputFiles({
    name: 'broken.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify({ format: 'taskscope-trace', version: 1, tasks: 'none' })),
  });
  await expect(page.getByTestId('trace-errors')).toContainText('tasks');
  await expect(bar(page)).toHaveCount(0);

  const dispatch = (type: 'dragover' | 'drop') =>
    page.evaluate(async (type) => {
      const text = await (await fetch('/demo-trace.json')).text();
      const transfer = new DataTransfer();
      transfer.items.add(new File([text], 'demo.trace.json', { type: 'application/json' }));
      const event = new DragEvent(type, { dataTransfer: transfer, cancelable: true, bubbles: true });
      if (type === 'dragover') window.dispatchEvent(event);
      else document.body.dispatchEvent(event);
    }, type);
  await dispatch('dragover');
  await expect(page.getByTestId('trace-drop-zone')).toBeVisible();
  await dispatch('drop');
  await expect(page.getByTestId('trace-drop-zone')).toHaveCount(0);
  await expect(bar(page)).toBeVisible();
  await expect(connectionStatus(page)).toHaveText('Replay');
  await page.getByTestId('replay-speed-instant').click();
  await expect(bar(page)).toHaveAttribute('data-ended', 'true');
  await expectEveryTaskAsRecorded(page, demo.tasks);
});
