import { readFileSync, writeFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import type { Trace } from '../../src/engine/trace/schema';
import { startRecorder } from '../helpers/record-trace';
import { startDemoReceiver2026 } from '../helpers/receiver-2026';
import { taskRow } from '../helpers/task-page';
import { startServe, type RunningCli } from '../helpers/taskscope-cli';
import { answerQuestion, connect, expect, runTask, test } from './fixtures';

/**
 * `taskscope serve --demo` as a live receiver for Taskscope's own page: the tasks it runs there show the same
 * timeline as the replay of the very trace it serves.
 */
const demo = JSON.parse(
  readFileSync(new URL('../../public/demo-trace.json', import.meta.url), 'utf8'),
) as Trace;

let served: RunningCli;
test.beforeAll(async () => {
  served = await startServe(['--demo', '--port', '0', '--speed', '2']);
});
test.afterAll(async () => {
  await served?.stop();
});

/** The statuses the open task's timeline draws, in order. */
async function timelineStatuses(page: Page): Promise<string[]> {
  const segments = page.getByTestId('task-detail').getByTestId('timeline').locator('[data-status]');
  return segments.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-status') ?? ''));
}

test('the page follows serve --demo live and draws the timelines the replay of the same trace draws', async ({
  page,
}) => {
  await connect(page, served.url);
  await expect(page.getByTestId('server-name')).toHaveText('Taskscope demo receiver (recorded)');
  const detail = page.getByTestId('task-detail');
  const live: Record<string, string[]> = {};

  await runTask(page, 'flaky_job');
  await expect(detail.getByTestId('timeline').locator('[data-status="failed"]')).toBeVisible();
  live.flaky_job = await timelineStatuses(page);

  // The recorded question comes to the page as it came to the recording's; the answer lets the task go on.
  await runTask(page, 'ask_user');
  await expect(detail.getByTestId('elicitation-form')).toContainText('Which colour should the report use?');
  await answerQuestion(detail, { Answer: 'teal' });
  await expect(detail.getByTestId('result')).toContainText('You answered: teal');
  await expect(detail.getByTestId('timeline').locator('[data-status="completed"]')).toBeVisible();
  live.ask_user = await timelineStatuses(page);

  await page.goto('/?trace=/demo-trace.json&speed=instant');
  await expect(page.getByTestId('replay-bar')).toHaveAttribute('data-ended', 'true');
  const replayed: Record<string, string[]> = {};
  for (const tool of ['flaky_job', 'ask_user']) {
    const recorded = demo.tasks.find((t) => t.tool === tool)!;
    await taskRow(page, recorded.taskId).click();
    await expect(detail.getByTestId('task-id')).toHaveText(recorded.taskId);
    await expect(detail.getByTestId('timeline').locator('[data-status]').last()).toHaveAttribute(
      'data-status',
      recorded.status!,
    );
    replayed[tool] = await timelineStatuses(page);
  }
  expect(replayed.ask_user).toEqual(['working', 'input_required', 'working', 'completed']);
  expect(live).toEqual(replayed);
});

test('a 2026-07-28 recording served: the page follows it live and draws the timelines its replay draws', async ({
  page,
}, testInfo) => {
  // Recorded here, by the engine against the 2026 demo receiver, with the page's own export builder.
  const rec = await startRecorder(() => startDemoReceiver2026());
  let trace: Trace;
  try {
    await rec.run('flaky_job', { failAfterMs: 800 });
    await rec.run('slow_job', { durationMs: 1200, steps: 3, pollIntervalMs: 300, label: 'served' });
    await rec.allEnded(15_000);
    trace = JSON.parse(JSON.stringify(rec.trace())) as Trace;
  } finally {
    await rec.close();
  }
  const file = testInfo.outputPath('recorded-2026.trace.json');
  writeFileSync(file, JSON.stringify(trace));
  const served2026 = await startServe([file, '--port', '0', '--speed', '2']);
  try {
    await connect(page, served2026.url);
    await expect(page.getByTestId('protocol-version')).toHaveText('2026-07-28');
    const detail = page.getByTestId('task-detail');
    const live: Record<string, string[]> = {};
    for (const [tool, end] of [
      ['flaky_job', 'failed'],
      ['slow_job', 'completed'],
    ] as const) {
      await runTask(page, tool);
      await expect(detail.getByTestId('timeline').locator(`[data-status="${end}"]`)).toBeVisible();
      live[tool] = await timelineStatuses(page);
    }

    await page.getByTestId('open-trace-input').setInputFiles(file);
    await expect(page.getByTestId('replay-bar')).toBeVisible();
    await page.getByTestId('replay-speed-instant').click();
    await expect(page.getByTestId('replay-bar')).toHaveAttribute('data-ended', 'true');
    const replayed: Record<string, string[]> = {};
    for (const tool of ['flaky_job', 'slow_job']) {
      const recorded = trace.tasks.find((t) => t.tool === tool)!;
      await taskRow(page, recorded.taskId).click();
      await expect(detail.getByTestId('task-id')).toHaveText(recorded.taskId);
      await expect(detail.getByTestId('timeline').locator('[data-status]').last()).toHaveAttribute(
        'data-status',
        recorded.status!,
      );
      replayed[tool] = await timelineStatuses(page);
    }
    expect(replayed).toEqual({ flaky_job: ['working', 'failed'], slow_job: ['working', 'completed'] });
    expect(live).toEqual(replayed);
  } finally {
    await served2026.stop();
  }
});
