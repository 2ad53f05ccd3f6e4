import { expect, test } from '@playwright/test';
import { startEverything, type RunningReceiver } from '../helpers/receivers';
import { storedInbox } from '../helpers/history-page';

let everything: RunningReceiver;
test.beforeAll(async () => {
  everything = await startEverything();
});
test.afterAll(async () => {
  await everything.close();
});

test('?server= connects to server-everything and runs its research task to a result', async ({ page }) => {
  await page.goto(`/?server=${encodeURIComponent(everything.url)}`);
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await expect(page.getByTestId('server-name')).toHaveText('Everything Reference Server');
  await expect(page.getByTestId('task-capabilities')).toContainText('✓ tools/call');
  await expect(page.getByTestId('tool-simulate-research-query')).toContainText('task required');
  await expect(page.getByTestId('tool-echo')).toContainText('no task');

  await page.getByTestId('tool-simulate-research-query').click();
  await page.locator('#arg-topic').fill('tides');
  await page.getByRole('button', { name: 'Run as task' }).click();
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByTestId('status-message')).toContainText(
    /Gathering sources|Analyzing content|Synthesizing|Generating/,
  );
  await expect(detail.getByTestId('result')).toContainText('Research Report: tides', { timeout: 20_000 });
  await expect(detail.getByTestId('poll-interval')).toHaveText('1 s');
  // server-everything keeps every task 300,000 ms whatever was asked.
  await expect(detail.getByTestId('ttl-countdown')).toHaveText(/^(4 min( \d+ s)?|5 min)$/);
});

test('the ambiguous research query asks which interpretation; the report names the one chosen', async ({
  page,
}) => {
  await page.goto(`/?server=${encodeURIComponent(everything.url)}`);
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await page.getByTestId('tool-simulate-research-query').click();
  await page.locator('#arg-topic').fill('python');
  await page.locator('#arg-ambiguous').check();
  await page.getByRole('button', { name: 'Run as task' }).click();
  const form = page.getByTestId('task-detail').getByTestId('elicitation-form');
  await expect(form).toContainText('could have multiple interpretations', { timeout: 20_000 });
  await form.getByLabel(/^Clarification/).selectOption({ label: 'Monty Python comedy group' });
  await form.getByRole('button', { name: 'Accept' }).click();
  await expect(page.getByTestId('result')).toContainText('Research Report: python (comedy)', {
    timeout: 20_000,
  });
});

test('a plain call that asks for sampling: the request waits outside any task, the reply goes back', async ({
  page,
}) => {
  await page.goto(`/?server=${encodeURIComponent(everything.url)}`);
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await page.getByTestId('tool-trigger-sampling-request').click();
  await page.locator('#arg-prompt').fill('What is six times seven?');
  await page.getByRole('button', { name: 'Call without task' }).click();
  const sampling = page.getByTestId('run-form').getByTestId('sampling-form');
  await expect(sampling).toContainText('What is six times seven?');
  await expect(page.getByTestId('run-form').getByTestId('inbox-item')).toContainText('outside any task');
  await sampling.getByLabel('Reply text').fill('forty-two');
  await sampling.getByLabel('model').fill('a-person');
  await sampling.getByRole('button', { name: 'Reply' }).click();
  await expect(page.getByTestId('result')).toContainText('forty-two');
});

test('a reload mid-task resumes the session on server-everything: the task stays live, keeps its history and reaches its result', async ({
  page,
}) => {
  await page.goto(`/?server=${encodeURIComponent(everything.url)}`);
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  const sessionId = (await page.getByTestId('session-id').textContent()) ?? '';
  // The ambiguous query waits for the person's answer (up to a minute): mid-task for as long as the test
  // needs it, where the plain one is over in 4 s.
  await page.getByTestId('tool-simulate-research-query').click();
  await page.locator('#arg-topic').fill('reloads');
  await page.locator('#arg-ambiguous').check();
  await page.getByRole('button', { name: 'Run as task' }).click();
  const detail = page.getByTestId('task-detail');
  const question = detail.getByTestId('elicitation-form');
  await expect(question).toContainText('could have multiple interpretations', { timeout: 20_000 });
  const taskId = (await detail.getByTestId('task-id').textContent()) ?? '';
  const polls = Number(await detail.getByTestId('poll-count').textContent());
  await expect.poll(() => storedInbox(page)).toContain('could have multiple interpretations');
  await page.reload();
  await expect(page.getByTestId('connection-status')).toHaveText('Connected');
  await expect(page.getByTestId('session-id')).toHaveText(sessionId);
  await expect(page.getByTestId('session-note')).toContainText('Session resumed');
  await expect(detail.getByTestId('task-id')).toHaveText(taskId);
  // Its history is kept, and it is still polled in the same session.
  await expect
    .poll(async () => Number(await detail.getByTestId('poll-count').textContent()))
    .toBeGreaterThan(polls);
  await expect(question).toContainText('could have multiple interpretations');
  await question.getByLabel(/^Clarification/).selectOption({ label: 'Historical perspective' });
  await question.getByRole('button', { name: 'Accept' }).click();
  await expect(detail.getByTestId('result')).toContainText('Research Report: reloads (historical)', {
    timeout: 20_000,
  });
  await expect(detail.getByTestId('session-ended')).toHaveCount(0);
});
