import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { runTool } from '../helpers/task-page';

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

/**
 * Pauses the replay wherever it is. At 1× the demo recording lasts 11 s; should a busy machine let it reach its
 * end before the click, it is played again from the start and paused again.
 */
async function pauseWhereItIs(page: Page) {
  const bar = page.getByTestId('replay-bar');
  const pause = page.getByTestId('replay-pause');
  let tries = 0;
  await expect(async () => {
    if ((await bar.getAttribute('data-ended')) === 'true') await page.getByTestId('replay-play').click();
    // A try after the first may find the replay already paused by the one before (its checks were slower
    // than the click): then there is no Pause to press, and the checks below are all that is left.
    if (tries++ === 0 || (await pause.isVisible())) await pause.click({ timeout: 5000 });
    await expect(page.getByTestId('replay-play')).toBeVisible({ timeout: 5000 });
    await expect(bar).toHaveAttribute('data-ended', 'false', { timeout: 5000 });
  }).toPass({ timeout: 45_000 });
}

/** Moves a paused replay to `offsetMs` after the recording's start with the scrubber's keys (50 ms a step). */
async function seekPausedTo(page: Page, offsetMs: number) {
  const scrubber = page.getByTestId('replay-scrubber');
  const min = Number(await scrubber.getAttribute('min'));
  await scrubber.focus();
  await scrubber.press('Home');
  await expect(scrubber).toHaveValue(String(min));
  // The key held down: the thumb moves a step per repeat, the replay seeks once, when it is let go.
  for (let i = 0; i < offsetMs / 50; i++) await page.keyboard.down('ArrowRight');
  await page.keyboard.up('ArrowRight');
  await expect(scrubber).toHaveValue(String(min + offsetMs));
}

async function expectEveryTaskAsRecorded(page: Page, tasks: DemoTask[]) {
  await expect(page.getByTestId('task-row')).toHaveCount(tasks.length);
  for (const task of tasks) {
    const row = page.locator(`[data-testid="task-row"][data-task-id="${task.taskId}"]`);
    await expect(row, task.tool).toContainText(shownStatus(task));
    if (!task.result) continue;
    await row.click();
    await expect(page.getByTestId('result'), task.tool).toContainText(firstText(task).slice(0, 60));
  }
}

test('the demo trace replays instantly to its end from the empty task list, with no request to a receiver', async ({
  page,
}) => {
  const requests = countDemoRequests(page);
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  // The counter sees the engine Worker's requests: live, the dashboard has asked the demo receiver already.
  expect(requests.length).toBeGreaterThan(0);
  await page.getByTestId('demo-trace-link').click();
  await expect(page.getByTestId('replay-bar')).toBeVisible();
  requests.length = 0;
  await expect(page.getByTestId('replay-label')).toContainText('no receiver is contacted');
  // The recording's date in the app's one 24-hour form.
  await expect(page.getByTestId('replay-label')).toContainText(/recorded \d{4}-\d\d-\d\d \d\d:\d\d:\d\d /);
  await page.getByTestId('replay-speed-instant').click();
  await expect(page.getByTestId('replay-bar')).toHaveAttribute('data-ended', 'true');
  await expectEveryTaskAsRecorded(page, demo.tasks);
  // Live-only actions are off: nothing to run, no cancel, no answering the recorded question.
  await page.getByTestId('tool-slow_job').click();
  await expect(page.getByRole('button', { name: 'Run as task' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Cancel task' })).toHaveCount(0);
  expect(requests).toEqual([]);
});

test('"Watch a recorded demo" shows itself: at 1×, with its most telling task open from the start', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await page.getByTestId('demo-trace-link').click();
  await expect(page.getByTestId('replay-bar')).toBeVisible();
  await expect(page.getByTestId('replay-speed-1')).toHaveAttribute('aria-pressed', 'true');
  // The task with the most to show (statuses, progress, a log line, its result): the first slow_job.
  const featured = demo.tasks[0] as DemoTask;
  expect(featured.tool).toBe('slow_job');
  await expect(page.getByTestId('task-id')).toHaveText(featured.taskId);
  await expect(page.getByTestId('task-detail').getByTestId('timeline')).toBeVisible();
  // Still playing when the newcomer gets to look: at 1× the recording takes its 11 s.
  await expect(page.getByTestId('replay-bar')).toHaveAttribute('data-ended', 'false');
  // The address names what is on screen: the recording and the task open in it.
  const params = new URL(page.url()).searchParams;
  expect(params.get('trace')).toBe('/demo-trace.json');
  expect(params.get('task')).toBe(featured.taskId);
  // A reload opens the same: the recording, with that task.
  await page.reload();
  await expect(page.getByTestId('replay-bar')).toBeVisible();
  await expect(page.getByTestId('task-id')).toHaveText(featured.taskId);
});

test('the demo trace at 1× and 4×: pause holds time, tasks end as recorded, the scrubber seeks back', async ({
  page,
}) => {
  // Plays the 11 s recording through twice over and checks every task: 19 s alone, 51 s beside a busy loop.
  test.setTimeout(120_000);
  const requests = countDemoRequests(page);
  await page.goto('/?trace=/demo-trace.json&speed=1');
  await expect(page.getByTestId('replay-bar')).toBeVisible();
  await expect(page.getByTestId('replay-speed-1')).toHaveAttribute('aria-pressed', 'true');
  // The long job works from 1.3 s until the recording cancels it at 4.3 s: paused 2 s in, it is working.
  const cancelled = demo.tasks.find((t) => t.status === 'cancelled') as DemoTask;
  const cancelledRow = page.locator(`[data-testid="task-row"][data-task-id="${cancelled.taskId}"]`);
  await pauseWhereItIs(page);
  await seekPausedTo(page, 2000);
  await expect(cancelledRow).toContainText('working');
  // Played on, it moves; paused again, it holds time.
  const scrubber = page.getByTestId('replay-scrubber');
  const seekedTo = Number(await scrubber.inputValue());
  await page.getByTestId('replay-play').click();
  await expect.poll(async () => Number(await scrubber.inputValue())).toBeGreaterThan(seekedTo);
  await pauseWhereItIs(page);
  const pausedAt = await scrubber.inputValue();
  const rowThen = await cancelledRow.textContent();
  // The replay's position is its clock's reading, and that clock is the page's: once the page's clock has
  // moved on by a second (four ticks of the page's 250 ms clock, and the recording's polls every 500 ms),
  // a replay still playing at 1× would stand a second further on.
  const pageNow = () => page.evaluate(() => Date.now());
  const from = await pageNow();
  await expect.poll(pageNow).toBeGreaterThan(from + 1000);
  await expect(page.getByTestId('replay-play')).toBeVisible();
  expect(await scrubber.inputValue()).toBe(pausedAt);
  expect(await cancelledRow.textContent()).toBe(rowThen);
  await page.getByTestId('replay-play').click();
  await page.getByTestId('replay-speed-4').click();
  await expect(page.getByTestId('replay-bar')).toHaveAttribute('data-ended', 'true', { timeout: 20_000 });
  await expectEveryTaskAsRecorded(page, demo.tasks);
  // The question asked during the recording is on the task's timeline, with its recorded answer.
  const asking = demo.tasks.find((t) => t.tool === 'ask_user') as DemoTask;
  await page.locator(`[data-testid="task-row"][data-task-id="${asking.taskId}"]`).click();
  await expect(page.getByTestId('timeline').locator('[data-status="input_required"]')).toBeVisible();
  // Back to the start at 1× (from the end it plays on; paused there): the stores start clean and fill again
  // from there.
  await page.getByTestId('replay-speed-1').click();
  await scrubber.focus();
  await scrubber.press('Home');
  await expect(page.getByTestId('replay-bar')).toHaveAttribute('data-ended', 'false');
  await pauseWhereItIs(page);
  await seekPausedTo(page, 0);
  await expect(page.getByTestId('task-row')).toHaveCount(0);
  await seekPausedTo(page, 2000);
  await expect(cancelledRow).toContainText('working');
  // Scrubbed to the end while paused, and from there instantly back through the whole recording.
  await scrubber.focus();
  await scrubber.press('End');
  await expect(page.getByTestId('replay-bar')).toHaveAttribute('data-ended', 'true');
  await scrubber.press('Home');
  await page.getByTestId('replay-speed-instant').click();
  await expect(page.getByTestId('replay-bar')).toHaveAttribute('data-ended', 'true');
  await expectEveryTaskAsRecorded(page, demo.tasks);
  expect(requests).toEqual([]);
});

test('a live flow exported and opened again replays to the same tasks, statuses and results', async ({
  page,
}, testInfo) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await runTool(page, 'slow_job', {
    durationMs: '1500',
    steps: '3',
    pollIntervalMs: '300',
    label: 'exported',
  });
  await runTool(page, 'flaky_job', { failAfterMs: '700', reason: 'disk full' });
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

  await page.getByTestId('export-button').click();
  const downloading = page.waitForEvent('download');
  await page.getByTestId('export-trace').click();
  const file = testInfo.outputPath('exported.trace.json');
  await (await downloading).saveAs(file);

  const requests = countDemoRequests(page);
  await page.getByTestId('open-trace-input').setInputFiles(file);
  await expect(page.getByTestId('replay-bar')).toBeVisible();
  await page.getByTestId('replay-speed-instant').click();
  await expect(page.getByTestId('replay-bar')).toHaveAttribute('data-ended', 'true');
  await expect(rows).toHaveCount(2);
  expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-task-id')))).toEqual(
    live.map((t) => t.taskId),
  );
  for (const task of live) {
    const row = page.locator(`[data-testid="task-row"][data-task-id="${task.taskId}"]`);
    await expect(row).toContainText(task.status);
    await row.click();
    await expect(page.getByTestId('result')).toHaveText(task.result);
  }
  expect(requests).toEqual([]);
});

test('a trace is opened from this origin only, and a malformed one is refused with its reasons', async ({
  page,
}) => {
  await page.goto('/?trace=https://example.com/evil.json');
  await expect(page.getByTestId('trace-errors')).toContainText("this page's own origin");
  await expect(page.getByTestId('replay-bar')).toHaveCount(0);
  await page.getByTestId('open-trace-input').setInputFiles({
    name: 'broken.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify({ format: 'taskscope-trace', version: 1, tasks: 'none' })),
  });
  await expect(page.getByTestId('trace-errors')).toContainText('tasks');
  await expect(page.getByTestId('replay-bar')).toHaveCount(0);
});

test('a trace dropped on the page replays', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await page.evaluate(async () => {
    const text = await (await fetch('/demo-trace.json')).text();
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], 'demo.trace.json', { type: 'application/json' }));
    window.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, cancelable: true }));
  });
  await expect(page.getByTestId('trace-drop-zone')).toBeVisible();
  await page.evaluate(async () => {
    const text = await (await fetch('/demo-trace.json')).text();
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], 'demo.trace.json', { type: 'application/json' }));
    document.body.dispatchEvent(
      new DragEvent('drop', { dataTransfer: transfer, cancelable: true, bubbles: true }),
    );
  });
  await expect(page.getByTestId('trace-drop-zone')).toHaveCount(0);
  await expect(page.getByTestId('replay-bar')).toBeVisible();
  await expect(page.getByTestId('connection-status')).toHaveText('Replay');
  await page.getByTestId('replay-speed-instant').click();
  await expect(page.getByTestId('replay-bar')).toHaveAttribute('data-ended', 'true');
  await expectEveryTaskAsRecorded(page, demo.tasks);
});

test('during a replay the header offers the live receiver, not the recording’s; Connect leaves the replay for it', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  const live = await page.locator('#server-url').inputValue();
  expect(live).toMatch(/\/demo\/mcp$/);
  await page.getByTestId('demo-trace-link').click();
  await expect(page.getByTestId('replay-bar')).toBeVisible();
  // The bar names the recording's receiver (a port long closed); the field keeps the live one.
  await expect(page.getByTestId('replay-label')).toContainText(demo.receiver.url);
  expect(demo.receiver.url).not.toBe(live);
  await expect(page.locator('#server-url')).toHaveValue(live);
  await expect(page.getByRole('button', { name: 'Reconnect' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(page.getByTestId('replay-bar')).toHaveCount(0);
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await expect(page.locator('#server-url')).toHaveValue(live);
});
