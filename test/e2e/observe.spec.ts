import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { startCli } from '../helpers/taskscope-cli';
import { pollCount, taskRow } from '../helpers/task-page';
import { connectionStatus, expect, test } from './fixtures';

/**
 * A real client observed through a real `taskscope proxy`, as only a browser shows it: the page on
 * `?observe=NAME` reads the proxy's stream from its Worker under the page's token, and the client's task shows
 * live — its timeline growing with the client's polls and the TTL counting down on the page's clock. What the
 * engine builds from the stream is test/integration/observed-engine.test.ts; the stream itself,
 * observed-endpoints.test.ts.
 */
test('the page on ?observe= shows a real client’s task live through taskscope proxy: its timeline and TTL countdown, nothing sent', async ({
  page,
  taskscope,
}) => {
  // The worker's Taskscope serves the demo receiver; the proxy stands in front of it with a page of its own.
  const proxy = await startCli(
    ['proxy', `${taskscope.url}/demo/mcp`, '--name', 'demo', '--no-open', '--port', '0'],
    {
      env: { PORT: '' },
    },
  );
  try {
    const endpoint = /client endpoint: (\S+)/.exec(proxy.output())?.[1];
    expect(endpoint).toBeDefined();
    await page.goto(`${proxy.url}/?observe=demo`);

    const client = new Client({ name: 'observed-host', version: '1.0.0' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint!)));
    try {
      // A task that works longer than the test looks at it, polled by the client itself.
      const created = await client.request(
        {
          method: 'tools/call',
          params: {
            name: 'slow_job',
            arguments: { durationMs: 60_000, steps: 2, pollIntervalMs: 300 },
            task: { ttl: 600_000 },
          },
        },
        CreateTaskResultSchema,
      );
      const taskId = created.task.taskId;
      const polls = setInterval(() => {
        void client
          .request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)
          .catch(() => undefined);
      }, 300);
      try {
        await expect(connectionStatus(page)).toHaveText(
          /^Observing observed-host 1\.0\.0 ↔ Taskscope demo receiver$/,
        );
        await expect(page.getByTestId('observed-session')).toHaveText(
          /observed-host 1\.0\.0.*2025-11-25 · 1 task/,
        );
        await taskRow(page, taskId).click();
        const detail = page.getByTestId('task-detail');
        await expect(detail.getByTestId('task-id')).toHaveText(taskId);
        // Live: the client's polls come in as it makes them, and the countdown ticks on the page's clock.
        const before = await pollCount(page);
        await expect.poll(() => pollCount(page)).toBeGreaterThan(before + 2);
        const countdown = detail.getByTestId('ttl-countdown');
        const first = await countdown.textContent();
        await expect(countdown).not.toHaveText(first ?? '');
        await expect(detail.getByTestId('timeline').locator('[data-mark="poll"]').first()).toBeAttached();
        // Nothing to send: no Cancel, Run again off with the reason.
        await expect(detail.getByRole('button', { name: 'Cancel task' })).toHaveCount(0);
        await expect(page.getByTestId('tools-unavailable')).toContainText('only watches');
        // A reload reads the proxy's copy again from its first message: the session, its task and polls are back.
        const polled = await pollCount(page);
        await page.reload();
        await taskRow(page, taskId).click();
        await expect(page.getByTestId('task-detail').getByTestId('task-id')).toHaveText(taskId);
        await expect.poll(() => pollCount(page)).toBeGreaterThanOrEqual(polled);
        // The report card shows both sides: the receiver's rules and the client's.
        await page.goto(`${proxy.url}/?observe=demo&report=1`);
        await expect(page.getByTestId('client-card')).toContainText('observed-host 1.0.0');
        await expect(
          page.getByTestId('client-rules').locator('[data-rule="client-poll-cadence"]'),
        ).toBeVisible();
        // The receiver's rules are judged on the observed traffic: the demo gives a ttl in every answer.
        await expect(page.getByTestId('report-rules').locator('[data-rule="ttl-present"]')).toHaveAttribute(
          'data-verdict',
          'pass',
        );
      } finally {
        clearInterval(polls);
        await client
          .request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema)
          .catch(() => undefined);
      }
    } finally {
      await client.close();
    }
  } finally {
    await proxy.stop();
  }
});
