import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpSession, TasksApi, classifyError, type ToolInfo } from '../../src/mcp';
import { createQueryClient } from '../../src/tracker/queries';
import { queryKeys } from '../../src/tracker/queries';
import { TaskTracker } from '../../src/tracker/tracker';
import { startUserDocsReceiver, type UserDocsReceiver } from '../helpers/user-docs-receiver';
import { waitFor } from '../helpers/wait';

let receiver: UserDocsReceiver;
let session: McpSession;
let api: TasksApi;
let tracker: TaskTracker;
const queryClient = createQueryClient();
let job: ToolInfo;

beforeAll(async () => {
  receiver = await startUserDocsReceiver();
  session = await McpSession.connect({ url: receiver.url });
  api = new TasksApi(session);
  job = (await api.listTools()).tools[0]!;
});
afterAll(async () => {
  await session.close();
  await receiver.close();
});
afterEach(() => tracker?.dispose());

async function run(args: Record<string, unknown>, ttl = 5000) {
  tracker = new TaskTracker({ api, queryClient, connectionId: 7 });
  const created = await api.createTask(job, args, { ttl });
  tracker.track(created.value!.taskId, { origin: 'created', tool: 'job', initial: created });
  return created.value!.taskId;
}
const record = (id: string) => tracker.store.getState().tasks.get(id)!;

describe('tracker against the user documents’ shapes', () => {
  it('wrapped {task}, the result envelope and notifications/tasks/updated: no warnings, no rate limits', async () => {
    const before = receiver.stats.rateLimited;
    const id = await run({ durationMs: 900, pollInterval: 200 });
    await waitFor(() => record(id).result.state === 'fetched', 5000);
    expect(record(id)).toMatchObject({ status: 'completed', warningCount: 0, rateLimitedCount: 0 });
    expect(record(id).notificationCount).toBeGreaterThanOrEqual(1);
    expect(receiver.stats.rateLimited).toBe(before);
    const result = queryClient.getQueryData<{ value: { shape: string; result: unknown } }>(
      queryKeys.taskResult(7, id),
    );
    expect(result?.value).toMatchObject({ shape: 'envelope', result: { content: [{ text: 'all done' }] } });
  });

  it('never calls tasks/result before the task is terminal; -32602 there classifies as not-ready', async () => {
    // It works for 1 s: the early tasks/result below goes one request after its create.
    const id = await run({ durationMs: 1000, pollInterval: 200 });
    const early = await api.getTaskResult(id).catch((e: unknown) => e);
    expect(classifyError(early, { method: 'tasks/result', knownTask: true, taskLive: true }).kind).toBe(
      'not-ready',
    );
    const byUs = receiver.stats.resultBeforeTerminal; // the one above
    await waitFor(() => record(id).result.state === 'fetched', 10_000);
    expect(receiver.stats.resultBeforeTerminal).toBe(byUs);
  });

  it('a failed task whose envelope has a null result', async () => {
    const id = await run({ durationMs: 300, outcome: 'failed' });
    await waitFor(() => record(id).result.state === 'fetched', 5000);
    const result = queryClient.getQueryData<{ value: { result: unknown; isError: boolean } }>(
      queryKeys.taskResult(7, id),
    );
    expect(result?.value).toEqual(expect.objectContaining({ result: null, isError: true }));
  });

  it('-32429: backs off, counts it and carries on', async () => {
    // Still working when the next poll is refused (it works for 1.5 s; polled every 0.2 s).
    const id = await run({ durationMs: 1500, pollInterval: 200 });
    receiver.forceRateLimitOnce();
    await waitFor(() => record(id).rateLimitedCount === 1, 3000);
    expect(record(id).lastError?.kind).toBe('rate-limited');
    await waitFor(() => record(id).lifecycle === 'terminal', 8000);
    expect(record(id).rateLimitedCount).toBe(1);
  });

  it('sends the connection’s own headers (e.g. Authorization) on every request', async () => {
    const own = await McpSession.connect({ url: receiver.url, headers: { Authorization: 'Bearer s3cret' } });
    try {
      await new TasksApi(own).listTools();
      expect(receiver.stats.authorization).toBe('Bearer s3cret');
    } finally {
      await own.close();
    }
  });

  it('"Task has expired" after the ttl: purged, with what was fetched kept', async () => {
    // Expired 1.5 s after it finishes: its result, fetched a poll (0.2 s) after the end, is there long before.
    const id = await run({ durationMs: 200, pollInterval: 200 }, 1500);
    await waitFor(() => record(id).result.state === 'fetched', 5000);
    await waitFor(() => record(id).lifecycle === 'purged', 10_000);
    expect(queryClient.getQueryData(queryKeys.taskResult(7, id))).toBeDefined();
  });
});
