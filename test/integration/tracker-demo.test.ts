import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpSession, TasksApi, type ToolInfo } from '../../src/mcp';
import { createQueryClient } from '../../src/tracker/queries';
import { TaskTracker } from '../../src/tracker/tracker';
import type { TrackedTask } from '../../src/tracker/task-store';
import { startDemoReceiver, type RunningReceiver } from '../helpers/receivers';
import { waitFor } from '../helpers/wait';

let receiver: RunningReceiver;
let session: McpSession;
let api: TasksApi;
let tracker: TaskTracker;
let tools: Map<string, ToolInfo>;

beforeAll(async () => {
  receiver = await startDemoReceiver();
});
afterAll(async () => {
  await receiver.close();
});
afterEach(async () => {
  tracker?.dispose();
  await session?.close();
});

async function connect() {
  session = await McpSession.connect({ url: receiver.url });
  api = new TasksApi(session);
  tracker = new TaskTracker({ api, queryClient: createQueryClient(), connectionId: 1 });
  tools = new Map((await api.listTools()).tools.map((t) => [t.name, t]));
}

async function run(tool: string, args: Record<string, unknown>, ttl?: number): Promise<string> {
  const sentAt = Date.now();
  const created = await api.createTask(tools.get(tool)!, args, { ttl });
  tracker.track(created.value!.taskId, { origin: 'created', tool, initial: created, sentAt });
  return created.value!.taskId;
}

const record = (id: string): TrackedTask => tracker.store.getState().tasks.get(id)!;
/** The create answer and every poll, in order: when each was sent and the pollInterval it brought. */
const asks = (id: string) =>
  record(id).entries.filter(
    (e) => e.kind === 'observation' && (e.source === 'poll' || e.source === 'create'),
  ) as Array<{ sentAt: number; pollInterval?: number }>;

describe('tracker against the demo receiver', () => {
  it('honours a pollInterval that changes mid-run', async () => {
    await connect();
    // It works for 10 min: the test waits for the polls it needs, then cancels it.
    const id = await run('variable_poll_job', {
      fastMs: 100,
      slowMs: 400,
      switchAfterMs: 400,
      totalMs: 600_000,
    });
    const gaps = () => {
      const sent = asks(id);
      return sent.slice(1).map((p, i) => ({ gap: p.sentAt - sent[i]!.sentAt, hint: sent[i]!.pollInterval! }));
    };
    // The create answer brings 100; the polls after the switch bring 400: two gaps begun at 400 at least.
    await waitFor(() => gaps().length > 4 && gaps().filter((g) => g.hint === 400).length >= 2, 15_000);
    expect(await tracker.cancel(id)).toBeNull();
    // Never sooner than the hint in force when the gap began (a few ms of timer slack allowed).
    for (const { gap, hint } of gaps()) expect(gap).toBeGreaterThanOrEqual(hint - 5);
    expect(gaps().some((g) => g.hint === 100)).toBe(true);
    expect(record(id).pollsAfterTerminal).toBe(0);
  });

  it('a failed task: its error result is fetched once', async () => {
    await connect();
    const id = await run('flaky_job', { failAfterMs: 300, reason: 'quota' });
    await waitFor(() => record(id).result.state === 'fetched', 10_000);
    expect(record(id).status).toBe('failed');
    const results = record(id).entries.filter((e) => e.kind === 'result');
    expect(results).toHaveLength(1);
  });

  it('expiry: after the ttl the receiver purges the task, and the tracker says so and keeps the result', async () => {
    await connect();
    // Purged 2 s after it completes: the result, fetched a poll (500 ms) after the end, is there long before.
    const id = await run('short_ttl_job', { ttlMs: 2000, durationMs: 100 });
    await waitFor(() => record(id).result.state === 'fetched', 5000);
    await waitFor(() => record(id).lifecycle === 'purged', 15_000);
    expect(record(id).lastError?.kind).toBe('purged');
    expect(record(id).entries.some((e) => e.kind === 'result' && e.outcome === 'fetched')).toBe(true);
    expect(record(id).pollsAfterTerminal).toBe(0);
  });

  it('cancel: the task ends cancelled and polling stops', async () => {
    await connect();
    // It works for 10 min: running whenever the test cancels it.
    const id = await run('slow_job', { durationMs: 600_000, steps: 2, pollIntervalMs: 200 });
    await waitFor(() => record(id).pollCount >= 1, 5000);
    expect(await tracker.cancel(id)).toBeNull();
    expect(record(id)).toMatchObject({ status: 'cancelled', lifecycle: 'terminal' });
    // Nothing is scheduled any more (the timing itself is checked under fake time in tracker.test.ts).
    expect(record(id).nextPollInMs).toBeNull();
    expect(record(id).pollsAfterTerminal).toBe(0);
    expect(record(id).result.state).toBe('none'); // a cancelled task has no result to fetch
  });

  it('tasks/list on connect: tracks what the session already has', async () => {
    await connect();
    const id = await run('slow_job', { durationMs: 300, steps: 1 });
    await waitFor(() => record(id).lifecycle === 'terminal', 5000);
    const other = new TaskTracker({ api, queryClient: createQueryClient(), connectionId: 2 });
    try {
      await other.syncList();
      expect(other.isTracked(id)).toBe(true);
      expect(other.store.getState().tasks.get(id)).toMatchObject({
        origin: 'list',
        status: 'completed',
        lifecycle: 'terminal',
      });
      // A terminal task found by tasks/list has its result fetched once, too.
      await waitFor(() => other.store.getState().tasks.get(id)?.result.state === 'fetched', 5000);
    } finally {
      other.dispose();
    }
  });
});
