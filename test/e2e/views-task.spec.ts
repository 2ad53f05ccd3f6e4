import { expect, test, type Locator, type Page } from '@playwright/test';
import { cancelTask, runTool, taskRow as row } from '../helpers/task-page';

/** Observation rows by their source column ("progress", "log info", "3rd poll"). */
const observations = (page: Page, source: string | RegExp) =>
  page
    .getByTestId('observations')
    .locator('tbody tr')
    .filter({ has: page.getByTestId('obs-source').getByText(source, { exact: true }) });

/** The first HH:MM:SS.mmm in a text, as ms since midnight. */
function clockMs(text: string): number {
  const [, h, m, sec, ms] = /(\d\d):(\d\d):(\d\d)\.(\d{3})/.exec(text) ?? [];
  return ((Number(h) * 60 + Number(m)) * 60 + Number(sec)) * 1000 + Number(ms);
}

/** Whether an element's text is cut (ellipsis, clipped) or wraps onto a second line. */
async function cutOrWrapped(locator: Locator): Promise<{ cut: boolean; lines: number }> {
  return locator.evaluate((el) => {
    // Lines of text only: an icon beside the text has a top of its own.
    const tops = new Set<number>();
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent?.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) tops.add(Math.round(r.bottom));
    }
    return { cut: el.scrollWidth > el.clientWidth + 1, lines: tops.size };
  });
}

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
});

test('progress: slow_job reports progress; the bar moves on the row and in the detail, with its message, and each report is an observation and a mark', async ({
  page,
}) => {
  // While it runs: a step a second for 100 s, longer than the test, so it is running whenever the test looks.
  const running = await runTool(page, 'slow_job', {
    durationMs: '100000',
    steps: '100',
    pollIntervalMs: '500',
    label: 'bar',
  });
  const detail = page.getByTestId('task-detail');
  const bar = detail.getByRole('progressbar', { name: 'Task progress' });
  await expect(bar).toHaveAttribute('aria-valuemax', '100');
  await expect(bar).toHaveAttribute('aria-valuenow', /^\d\d?$/);
  const first = Number(await bar.getAttribute('aria-valuenow'));
  await expect(detail.getByTestId('task-progress')).toContainText(/Step \d+\/100: bar/);
  // The row shows the bar while the task runs.
  await expect(row(page, running).getByRole('progressbar')).toBeVisible();
  await expect(row(page, running).getByTestId('row-progress')).toContainText(/Step \d+\/100: bar/);
  // It moves.
  await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow'))).toBeGreaterThan(first);
  // Ended: the row gives its place back to the id.
  await cancelTask(page, running);
  await expect(row(page, running).getByRole('progressbar')).toHaveCount(0);

  // To its end: a short one, whose last report says so.
  const taskId = await runTool(page, 'slow_job', {
    durationMs: '800',
    steps: '4',
    pollIntervalMs: '200',
    label: 'done',
  });
  await expect(bar).toHaveAttribute('aria-valuemax', '4');
  await expect(bar).toHaveAttribute('aria-valuenow', '4', { timeout: 10_000 });
  await expect(detail.getByTestId('task-progress')).toContainText('Done: done');
  await expect(detail.getByTestId('result')).toContainText('Finished done');
  await expect(row(page, taskId).getByRole('progressbar')).toHaveCount(0);

  await expect(detail.getByTestId('timeline').locator('[data-mark="progress"]').first()).toBeAttached();
  const progressRows = observations(page, 'progress');
  await expect(progressRows.first()).toBeAttached();
  await expect(progressRows.filter({ hasText: 'Done: done' })).toHaveCount(1);
  await expect(progressRows.filter({ hasText: 'Done: done' })).toContainText('4/4');
  // Pushes announced it before the create answer did: still, a task created here was never unobserved.
  await expect(detail.getByTestId('unobserved')).toHaveCount(0);
});

test('log lines naming the task appear among its observations', async ({ page }) => {
  // slow_job logs one line naming its task as it creates it, on the GET stream.
  await runTool(page, 'slow_job', { durationMs: '800', steps: '1', pollIntervalMs: '300', label: 'logged' });
  await expect(page.getByTestId('result')).toContainText('Finished logged');
  await expect(observations(page, 'log info')).toContainText(
    'slow_job: slow_job logged: 1 steps over 800 ms',
  );
  await expect(page.getByTestId('timeline').locator('[data-mark="log"]')).toHaveCount(1);
});

test('the call on the task: tool, arguments and ttl shown; Run again fills the form; the form keeps what was typed', async ({
  page,
}) => {
  await runTool(
    page,
    'slow_job',
    { durationMs: '700', steps: '1', pollIntervalMs: '300', label: 'first run' },
    { ttl: '45000' },
  );
  const call = page.getByTestId('task-call');
  await expect(call.getByTestId('call-tool')).toHaveText('slow_job');
  await expect(call.getByTestId('call-ttl')).toContainText('45 s');
  await expect(call.getByTestId('call-args')).toContainText('"label":"first run"');
  await expect(call.getByTestId('call-args')).toContainText('"durationMs":700');

  await call.getByRole('button', { name: 'Run again' }).click();
  const form = page.getByTestId('run-form');
  await expect(form.getByTestId('run-again-note')).toBeVisible();
  await expect(form.locator('#arg-label')).toHaveValue('first run');
  await expect(form.locator('#arg-durationMs')).toHaveValue('700');
  await expect(form.locator('#arg-steps')).toHaveValue('1');
  await expect(form.locator('#task-ttl')).toHaveValue('45000');

  // What is typed survives going to a task and back.
  await form.locator('#arg-label').fill('typed, not sent');
  await form.locator('#task-ttl').fill('50000');
  await page.getByTestId('task-row').first().click();
  await expect(page.getByTestId('task-detail')).toBeVisible();
  await page.getByTestId('tool-slow_job').click();
  await expect(form.locator('#arg-label')).toHaveValue('typed, not sent');
  await expect(form.locator('#task-ttl')).toHaveValue('50000');
  // Another tool's form is its own.
  await page.getByTestId('tool-flaky_job').click();
  await expect(form.locator('#arg-reason')).toHaveValue('upstream dependency timed out');

  // Running the re-filled form sends what it shows.
  await page.getByTestId('tool-slow_job').click();
  await form.getByRole('button', { name: 'Run as task' }).click();
  await expect(page.getByTestId('task-call').getByTestId('call-args')).toContainText(
    '"label":"typed, not sent"',
  );
  await expect(page.getByTestId('task-call').getByTestId('call-ttl')).toContainText('50 s');
});

test('the timeline: the pollInterval in force as a step line and a column, and the TTL deadline marked', async ({
  page,
}) => {
  await runTool(page, 'variable_poll_job', {
    fastMs: '250',
    slowMs: '2000',
    switchAfterMs: '1200',
    totalMs: '3500',
  });
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('result')).toContainText('pollInterval went 250 → 2000 ms', {
    timeout: 15_000,
  });
  const steps = detail.getByTestId('poll-step');
  await expect(steps).toHaveCount(2);
  await expect(steps.nth(0)).toHaveAttribute('data-interval', '250');
  await expect(steps.nth(1)).toHaveAttribute('data-interval', '2000');
  // The slower interval sits higher on the line.
  const [fast, slow] = [await steps.nth(0).boundingBox(), await steps.nth(1).boundingBox()];
  expect(slow!.y).toBeLessThan(fast!.y);
  const column = detail.getByTestId('obs-poll-interval');
  await expect(column.filter({ hasText: /^250 ms$/ }).first()).toBeVisible();
  await expect(column.filter({ hasText: /^2 s$/ }).first()).toBeVisible();

  // A ttl that ends soon after the task: its deadline is marked on the timeline at its time, on the same axis
  // as the result (right of it when the result came before the deadline, as it does unless the machine
  // is so slow that the result is seen after the ttl ran out).
  await runTool(page, 'slow_job', { durationMs: '2500', steps: '1', pollIntervalMs: '500' }, { ttl: '3500' });
  await expect(detail.getByTestId('result')).toContainText('Finished');
  const deadline = detail.getByTestId('timeline').locator('[data-mark="ttl"]');
  await expect(deadline).toHaveCount(1);
  await expect(deadline).toHaveAttribute('title', /^TTL deadline \d\d:\d\d:\d\d\.\d{3}: createdAt \+ ttl/);
  const resultMark = detail.getByTestId('timeline').locator('[data-mark="result"]');
  await expect(resultMark).toHaveAttribute('title', /^tasks\/result \d\d:\d\d:\d\d\.\d{3}/);
  const deadlineAt = clockMs((await deadline.getAttribute('title')) ?? '');
  const resultAt = clockMs((await resultMark.getAttribute('title')) ?? '');
  const [deadlineX, resultX] = [(await deadline.boundingBox())!.x, (await resultMark.boundingBox())!.x];
  expect(Math.sign(deadlineX - resultX)).toBe(Math.sign(deadlineAt - resultAt));
  // A 60 s ttl is far beyond a short task's life: marked at the right edge, saying where it really is. (Set
  // here: the form keeps the 3.5 s of the run before, whose deadline an ended task now shows in place.)
  await runTool(page, 'slow_job', { durationMs: '600', steps: '1', pollIntervalMs: '300' }, { ttl: '60000' });
  await expect(detail.getByTestId('result')).toContainText('Finished');
  const edge = detail.getByTestId('timeline').locator('[data-mark="ttl"]');
  await expect(edge).toHaveCount(1);
  await expect(edge).toHaveAttribute(
    'title',
    /^TTL deadline \d\d:\d\d:\d\d\.\d{3} →: .* past the right edge/,
  );
});

test('a task first seen late: the time before its first observation is drawn as not observed', async ({
  page,
}) => {
  const taskId = await runTool(page, 'slow_job', { durationMs: '1200', steps: '1', pollIntervalMs: '300' });
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('result')).toContainText('Finished');
  await expect(detail.getByTestId('unobserved')).toHaveCount(0);
  // Forget it, then learn of it again from tasks/list: first seen now, created seconds ago. Clear is on the
  // receiver card, folded to one line once connected.
  await page.getByTestId('receiver-toggle').click();
  await page.getByTestId('clear-history').click();
  await expect(page.getByTestId('task-row')).toHaveCount(0);
  // No wait needed for "created a while ago": it was created over 1.2 s ago, when it started its work.
  await page.getByRole('button', { name: 'Refresh task list' }).click();
  await row(page, taskId).click();
  const unobserved = detail.getByTestId('unobserved');
  await expect(unobserved).toBeVisible();
  await expect(unobserved).toContainText(/not observed \d(\.\d)? s/);
  // The hatched time comes before the status the list reported, and the ended status claims no length.
  const completed = detail.getByTestId('timeline').locator('[data-status="completed"]');
  await expect(completed).toHaveText('completed');
  expect((await unobserved.boundingBox())!.x).toBeLessThan((await completed.boundingBox())!.x);
  // The row says how long it took (createdAt to its end), not how long ago it was listed.
  await expect(row(page, taskId).getByTestId('task-time')).toHaveText(/^took 1(\.\d)? s$/);
});

test('a task row: the duration for an ended task, labelled and still; the age for a live one, counting', async ({
  page,
}) => {
  const failed = await runTool(page, 'flaky_job', { failAfterMs: '1500' });
  const live = await runTool(page, 'slow_job', { durationMs: '600000', steps: '2', pollIntervalMs: '1000' });
  const failedTime = row(page, failed).getByTestId('task-time');
  await expect(row(page, failed)).toContainText('failed');
  // createdAt to its end on the receiver's clock: 1.5 s of work, more on a busy machine, never less.
  await expect(failedTime).toHaveText(/^took \d+(\.\d)? s$/);
  const took = (await failedTime.textContent()) ?? '';
  expect(Number(/[\d.]+/.exec(took)?.[0])).toBeGreaterThanOrEqual(1.5);

  const liveTime = row(page, live).getByTestId('task-time');
  await expect(liveTime).toHaveText(/^age \d/);
  const age = await liveTime.textContent();
  await expect(liveTime).not.toHaveText(age!);
  // Both rows read the page's one clock: the tick that moved the live age would have moved this one too.
  await expect(failedTime).toHaveText(took);
  await page.getByTestId('task-detail').getByRole('button', { name: 'Cancel task' }).click();
  await expect(row(page, live)).toContainText('cancelled');
  await expect(liveTime).toHaveText(/^took \d/);
});

test('the detail: the TTL figure is never cut, an ended task heads with its ending, a cancelled one says it has no result', async ({
  page,
}) => {
  // Expired from 1 s on, and never purged: the demo's faults case with keep-beyond-ttl keeps it, so it reads
  // expired for as long as the test looks (the demo itself purges at the ttl, a moment later).
  await page.goto(`/?server=${encodeURIComponent('/demo/mcp?faults=keep-beyond-ttl')}`);
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await runTool(page, 'job', { durationMs: '600000' }, { ttl: '1000' });
  const countdown = page.getByTestId('ttl-countdown');
  await expect(countdown).toContainText('expired — the receiver may purge it now');
  const shown = await countdown.evaluate((el) => {
    const dd = el.closest('dd')!;
    return {
      cut: dd.scrollWidth > dd.clientWidth + 1,
      title: el.getAttribute('title'),
      text: el.textContent,
    };
  });
  expect(shown.text).toContain('expired — the receiver may purge it now');
  expect(shown.cut).toBe(false);
  expect(shown.title).toContain('expired — the receiver may purge it now');

  await page.goto('/');
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');

  await runTool(page, 'slow_job', { durationMs: '600', steps: '2', pollIntervalMs: '200', label: 'head' });
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('status-headline')).toContainText('Completed');
  await expect(detail.getByTestId('status-message')).toHaveText('Step 2/2: head');
  await expect(detail.getByText('last statusMessage:')).toBeVisible();

  await runTool(page, 'slow_job', { durationMs: '600000', steps: '2', pollIntervalMs: '300' });
  await expect(detail.getByTestId('status-message')).toContainText('Step 1/2');
  await detail.getByRole('button', { name: 'Cancel task' }).click();
  await expect(detail.getByTestId('status-headline')).toContainText('Cancelled');
  await expect(detail.getByTestId('no-result')).toHaveText('No result: a cancelled task has none to fetch.');
  await expect(detail).not.toContainText('The result is fetched the moment');
});

test('Call without task on a task-optional tool answers inline and adds no task to the list', async ({
  page,
}) => {
  await page.getByTestId('tool-summarise').click();
  const form = page.getByTestId('run-form');
  await form.getByRole('button', { name: 'Call without task' }).click();
  await expect(form.getByTestId('result')).toContainText('words');
  // The receiver ran the call as a task of its own and pushed that task's end: once the push is in the
  // traffic log, the engine has handled it, and it made no task of it.
  await page.getByRole('button', { name: /^Traffic/ }).click();
  await expect(
    page.getByTestId('traffic-row').filter({ hasText: 'notifications/tasks/status' }).first(),
  ).toBeVisible();
  await expect(page.getByTestId('task-row')).toHaveCount(0);
  await expect(
    page.getByRole('group', { name: 'Filter by status' }).getByRole('button', { name: /^all/ }),
  ).toHaveText('all 0');
});

test('layout: a forbidden tool has no ttl field and one line per button; a row’s time stays on one line beside two badges; one time format', async ({
  page,
}) => {
  await page.getByTestId('tool-echo').click();
  const form = page.getByTestId('run-form');
  await expect(form.getByTestId('no-task-reason')).toContainText('taskSupport: forbidden');
  await expect(form.locator('#task-ttl')).toHaveCount(0);
  for (const name of ['Run as task', 'Call without task'])
    expect(await cutOrWrapped(form.getByRole('button', { name }))).toEqual({ cut: false, lines: 1 });

  // ask_user waits for input: its row carries the status and "needs you".
  const taskId = await runTool(page, 'ask_user');
  await expect(row(page, taskId)).toContainText('needs you');
  const time = row(page, taskId).getByTestId('task-time');
  expect(await cutOrWrapped(time)).toEqual({ cut: false, lines: 1 });
  const [rowBox, timeBox] = [await row(page, taskId).boundingBox(), await time.boundingBox()];
  expect(timeBox!.x + timeBox!.width).toBeLessThanOrEqual(rowBox!.x + rowBox!.width);

  // Times: 24-hour with milliseconds in the observations and in the timeline's hovers.
  const detail = page.getByTestId('task-detail');
  const firstCell = detail.getByTestId('observations').locator('tbody tr[data-kind] td').first();
  await expect(firstCell).toHaveText(/^\d\d:\d\d:\d\d\.\d{3}$/);
  await expect(detail.getByTestId('timeline').locator('[data-mark="create"]')).toHaveAttribute(
    'title',
    /(sent|at) \d\d:\d\d:\d\d\.\d{3}/,
  );
  await expect(detail).not.toContainText(/\d(AM|PM)\b| (AM|PM)\b/);
});
