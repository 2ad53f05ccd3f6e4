import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ObservedFeed } from '../../src/engine/observe/observed-feed';
import { RecordedTasks } from '../../src/engine/trace/replay-records';
import { createQueryClient, queryKeys } from '../../src/tracker/queries';
import type { SeenMessage } from '../../src/mcp';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { extTasksSession } from '../helpers/ext-tasks-session';
import { startDemoReceiver2026 } from '../helpers/receiver-2026';
import { recordingFetch } from '../helpers/recording-fetch';

const later = stopAfterEach();

/** What passed, read into task records as an observed session builds them (a replay fed as the messages come). */
function records(messages: readonly SeenMessage[]) {
  const queryClient = createQueryClient({ sharing: false });
  const tasks = new RecordedTasks(queryClient, 1);
  const feed = new ObservedFeed();
  for (const seen of messages)
    for (const effect of feed.push(seen)) {
      if (effect.kind === 'appear') tasks.appear(effect.task);
      else if (effect.kind === 'result-sent') tasks.resultSent(effect.task);
      else tasks.apply(effect.task, effect.entry, undefined, false);
    }
  const all = [...tasks.store.getState().tasks.values()];
  return { feed, all, result: (taskId: string) => queryClient.getQueryData(queryKeys.taskResult(1, taskId)) };
}

describe('an observed session: what a real client did, as task records', () => {
  it('the SDK 1.32 client on the demo receiver: the task, its polls, its timeline and the result it fetched', async () => {
    const demo = await demoFor(later);
    const tap = recordingFetch();
    const client = new Client({ name: 'observed', version: '1' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(demo.url), { fetch: tap.fetch }));
    later(() => client.close());
    await client.listTools();
    const stream = client.experimental.tasks.callToolStream({
      name: 'slow_job',
      arguments: { durationMs: 600, steps: 2, pollIntervalMs: 200, label: 'seen' },
    });
    for await (const message of stream) if (message.type === 'error') throw message.error;
    const { feed, all, result } = records(tap.messages);
    expect(feed.era).toBe('2025-11-25');
    expect(all).toHaveLength(1);
    const task = all[0]!;
    expect(task).toMatchObject({
      tool: 'slow_job',
      origin: 'created',
      status: 'completed',
      lifecycle: 'terminal',
    });
    expect(task.call?.args).toMatchObject({ label: 'seen' });
    expect(task.pollCount).toBeGreaterThan(1);
    const sources = new Set(task.entries.filter((e) => e.kind === 'observation').map((e) => e.source));
    expect(sources).toContain('create');
    expect(sources).toContain('poll');
    expect(task.entries.some((e) => e.kind === 'result' && e.outcome === 'fetched')).toBe(true);
    expect(task.result.state).toBe('fetched');
    expect(JSON.stringify(result(task.taskId))).toContain('seen');
  });

  it('the SDK 2.x client with ext-tasks on the 2026-07-28 demo: the result read from the poll that saw the end', async () => {
    const receiver = await startDemoReceiver2026();
    later(receiver.close);
    const tap = recordingFetch();
    const session = await extTasksSession(receiver.url, 'demo', tap.fetch);
    later(session.close);
    const slow = await session.tasks.callTool('slow_job', { durationMs: 400, steps: 2, pollIntervalMs: 200 });
    expect((await slow.settle()).outcome.status).toBe('completed');
    const { feed, all } = records(tap.messages);
    expect(feed.era).toBe('2026-07-28');
    const task = all.find((t) => t.tool === 'slow_job');
    expect(task).toMatchObject({ status: 'completed', lifecycle: 'terminal' });
    expect(task?.result.state).toBe('fetched');
  });
});
