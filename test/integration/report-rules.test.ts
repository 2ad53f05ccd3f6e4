import { afterAll, afterEach, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';
import {
  McpSession,
  isTerminal,
  TasksApi,
  TrafficTap,
  forTrafficLog,
  type Normalised,
  type TaskResultSnapshot,
  type ToolInfo,
  type TrafficEvent,
} from '../../src/mcp';
import { createQueryClient } from '../../src/tracker/queries';
import { queryKeys } from '../../src/tracker/queries';
import { TaskTracker } from '../../src/tracker/tracker';
import type { TrackedTask } from '../../src/tracker/task-store';
import { evaluateReport, type ReportInput } from '../../src/rules/evaluate';
import type { ReportCard, RuleId, Verdict } from '../../src/rules/report-types';
import { startHostileReceiver, type FaultName, type HostileReceiver } from '../servers/hostile/receiver';
import { startDemoReceiver, startEverything, type RunningReceiver } from '../helpers/receivers';
import { waitFor } from '../helpers/wait';

/** One connection as the engine has it: session, tap, tracker and its query cache. */
interface Run {
  session: McpSession;
  api: TasksApi;
  tracker: TaskTracker;
  tools: ToolInfo[];
  traffic: TrafficEvent[];
  queryClient: ReturnType<typeof createQueryClient>;
  url: string;
}

const CONNECTION = 1;

/** Connects; `finished` (the test's onTestFinished) closes the connection when that test ends. */
async function connect(url: string, finished: (close: () => Promise<void>) => void): Promise<Run> {
  const tap = new TrafficTap();
  const traffic: TrafficEvent[] = [];
  tap.subscribe((event) => traffic.push(forTrafficLog(event)));
  const session = await McpSession.connect({ url, tap });
  const api = new TasksApi(session);
  const queryClient = createQueryClient();
  const tracker = new TaskTracker({ api, queryClient, connectionId: CONNECTION });
  const { tools } = await api.listTools();
  finished(async () => {
    tracker.dispose();
    await session.close();
  });
  return { session, api, tracker, tools, traffic, queryClient, url };
}

/** The evaluate input exactly as the page builds it: the tracker's store, the results cache and the traffic. */
function inputOf(run: Run): ReportInput {
  const state = run.tracker.store.getState();
  const results = new Map<string, Normalised<TaskResultSnapshot>>();
  for (const taskId of state.order) {
    const result = run.queryClient.getQueryData<Normalised<TaskResultSnapshot>>(
      queryKeys.taskResult(CONNECTION, taskId),
    );
    if (result) results.set(taskId, result);
  }
  const server = run.session.describeServer();
  return {
    receiver: { url: run.url, era: '2025-11-25', server: { name: server.name, version: server.version } },
    support: run.api.support,
    tools: run.tools,
    tasks: state.tasks.values(),
    results,
    traffic: run.traffic,
    clockOffsetMs: state.clockOffsetMs,
    clockSamples: state.clockSamples,
    now: Date.now(),
  };
}

const card = (run: Run) => evaluateReport(inputOf(run));
const verdicts = (c: ReportCard) => Object.fromEntries(c.rules.map((r) => [r.id, r.verdict]));
const record = (run: Run, id: string): TrackedTask | undefined => run.tracker.store.getState().tasks.get(id);

async function create(run: Run, tool: string, args: Record<string, unknown>, ttl?: number): Promise<string> {
  const info = run.tools.find((t) => t.name === tool)!;
  const sentAt = Date.now();
  const created = await run.api.createTask(info, args, { ttl });
  const taskId = created.value!.taskId;
  run.tracker.track(taskId, { origin: 'created', tool, call: { tool, args, ttl }, initial: created, sentAt });
  return taskId;
}

const tasksOf = (run: Run) => [...run.tracker.store.getState().tasks.values()];

/** A listing that says working after an answer (not a push) that said the task had ended. */
const reopened = (task: TrackedTask) => {
  const ended = task.entries.find(
    (e) => e.kind === 'observation' && e.source !== 'notification' && isTerminal(e.status),
  );
  return (
    ended !== undefined &&
    task.entries.some(
      (e) => e.kind === 'observation' && e.source === 'list' && e.status === 'working' && e.at > ended.at,
    )
  );
};

/** tasks/list again and again (one at a time) until what it brings satisfies `condition`. */
async function relistUntil(run: Run, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`listing did not show it within ${timeoutMs} ms`);
    await run.tracker.syncList();
    // The step between listings, as waitFor's: a look, not a guess at how long it takes.
    await new Promise((r) => setTimeout(r, 25));
  }
}

const settle = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    () => undefined,
  );

/**
 * What a person does in a short session: a task that completes, one that fails, one cancelled, one short-lived
 * that expires, a pasted id the receiver never had, a listing, a cancel of an ended task, and two calls against
 * a tool's taskSupport (as the active check sends them). Every rule the card judges gets something to judge.
 */
async function session(run: Run): Promise<void> {
  const done = await create(run, 'job', { durationMs: 400, pollInterval: 100 }, 60_000);
  const failed = await create(run, 'job', { durationMs: 400, pollInterval: 100, outcome: 'failed' }, 60_000);
  const asks = await create(run, 'job', { durationMs: 700, pollInterval: 100, inputAfterMs: 150 }, 60_000);
  // Works for 10 min: still running whenever the session gets to cancel it.
  const cancelled = await create(run, 'job', { durationMs: 600_000, pollInterval: 100 }, 60_000);
  const brief = await create(run, 'job', { durationMs: 100, pollInterval: 100 }, 500);
  run.tracker.track('never-was-a-task', { origin: 'manual' });
  await settle(run.session.request('tools/call', { name: 'quick', arguments: {}, task: {} }));
  await settle(run.session.request('tools/call', { name: 'job', arguments: {} }));
  await waitFor(() => (record(run, cancelled)?.pollCount ?? 0) >= 1, 5000);
  await run.tracker.cancel(cancelled);
  await waitFor(
    () =>
      [done, failed, asks].every((id) => {
        const task = record(run, id);
        return task?.result.state === 'fetched' || task?.lifecycle === 'purged';
      }) && record(run, brief)?.lifecycle !== 'live',
    8000,
  );
  await settle(run.tracker.syncList());
  await settle(run.session.request('tasks/cancel', { taskId: done }));
}

beforeAll(async () => {
  hostile = await startHostileReceiver();
});
let hostile: HostileReceiver;
afterAll(async () => {
  await hostile.close();
});

/** Everything but `rule` must not fail or warn (pass, info for MAYs not used, or unobserved). */
function onlyBroken(c: ReportCard, rule: RuleId, expected: Verdict, expect: ExpectStatic) {
  const all = verdicts(c);
  expect(all[rule], c.rules.find((r) => r.id === rule)?.reason).toBe(expected);
  const rest = c.rules.filter((r) => r.id !== rule && (r.verdict === 'fail' || r.verdict === 'warn'));
  expect(rest.map((r) => `${r.id}: ${r.verdict} — ${r.reason} ${r.firstOffence?.detail ?? ''}`)).toEqual([]);
  const broken = c.rules.find((r) => r.id === rule)!;
  expect(broken.firstOffence).toBeDefined();
}

describe('report card on the hostile receiver’s faults case', () => {
  it('without faults: every rule the session can judge passes, none fails or warns', async ({
    onTestFinished,
  }) => {
    const run = await connect(hostile.faultsUrl([]), onTestFinished);
    await session(run);
    // The short-lived task is purged at its ttl and a probe finds it gone: judged on time.
    await waitFor(() => verdicts(card(run))['ttl-not-purged-early'] === 'pass', 5000);
    const c = card(run);
    expect(c.rules.filter((r) => r.verdict === 'fail' || r.verdict === 'warn')).toEqual([]);
    for (const id of [
      'poll-interval-present',
      'poll-interval-stable',
      'ttl-present',
      'ttl-not-purged-early',
      'ttl-not-kept-beyond',
      'status-transitions',
      'created-at-fixed',
      'last-updated-monotonic',
      'timestamps-not-future',
      'result-after-terminal',
      'result-related-meta',
      'failed-result-explains',
      'pushes-consistent',
      'pushes-sent',
      'unknown-task-error',
      'capability-absent-error',
      'capability-tasks-list',
      'capability-tasks-cancel',
      'tool-task-support',
      'terminal-cancel-refused',
      'task-only-for-tools-call',
      'requested-ttl-honoured',
    ] as const)
      expect(verdicts(c)[id], id).toBe('pass');
    expect(c.counts.fail).toBe(0);
  }, 20_000);

  const cases: Array<{
    fault: FaultName;
    rule: RuleId;
    verdict: Verdict;
    extra?: (run: Run) => Promise<void>;
  }> = [
    { fault: 'no-poll-interval', rule: 'poll-interval-present', verdict: 'info' },
    {
      fault: 'jumpy-poll-interval',
      rule: 'poll-interval-stable',
      verdict: 'info',
      // Works for 10 min, so it is polled for as long as the jumpy answers take: the wait below is for the
      // verdict itself (three changes in a row: the create answer and three polls, under a second).
      extra: async (run) => void (await create(run, 'job', { durationMs: 600_000 }, 60_000)),
    },
    { fault: 'no-ttl', rule: 'ttl-present', verdict: 'fail' },
    { fault: 'purge-early', rule: 'ttl-not-purged-early', verdict: 'fail' },
    { fault: 'keep-beyond-ttl', rule: 'ttl-not-kept-beyond', verdict: 'warn' },
    {
      fault: 'terminal-changes',
      rule: 'status-transitions',
      verdict: 'fail',
      // Listed until a listing shows an ended task working again (300 ms after it ended).
      extra: (run) => relistUntil(run, () => tasksOf(run).some(reopened)),
    },
    { fault: 'created-at-moves', rule: 'created-at-fixed', verdict: 'fail' },
    { fault: 'updated-goes-back', rule: 'last-updated-monotonic', verdict: 'fail' },
    { fault: 'future-updated', rule: 'timestamps-not-future', verdict: 'fail' },
    { fault: 'early-result', rule: 'result-after-terminal', verdict: 'fail' },
    { fault: 'no-related-meta', rule: 'result-related-meta', verdict: 'fail' },
    { fault: 'unexplained-failure', rule: 'failed-result-explains', verdict: 'warn' },
    {
      fault: 'contradicting-push',
      rule: 'pushes-consistent',
      verdict: 'fail',
      extra: async (run) => {
        // The push's "completed" arrives half way (1.5 s); the listing after it, one request later and well
        // before the real end (3 s), still says working.
        const id = await create(run, 'job', { durationMs: 3000, pollInterval: 100 }, 60_000);
        await waitFor(() => record(run, id)?.status === 'completed', 10_000);
        await run.tracker.syncList();
      },
    },
    { fault: 'no-pushes', rule: 'pushes-sent', verdict: 'info' },
    { fault: 'wrong-unknown-code', rule: 'unknown-task-error', verdict: 'fail' },
    { fault: 'forbidden-tool-runs', rule: 'capability-absent-error', verdict: 'warn' },
    { fault: 'rate-limit-no-retry-after', rule: 'rate-limit-retry-after', verdict: 'info' },
    { fault: 'list-refused', rule: 'capability-tasks-list', verdict: 'fail' },
    {
      fault: 'undeclared-list-answered',
      rule: 'undeclared-method-refused',
      verdict: 'info',
      // The tracker never lists a receiver without tasks.list; a person's raw request (or the check) does.
      extra: (run) => settle(run.session.request('tasks/list', {})),
    },
    { fault: 'cancel-refused', rule: 'capability-tasks-cancel', verdict: 'fail' },
    { fault: 'required-runs-plain', rule: 'tool-task-support', verdict: 'fail' },
    { fault: 'terminal-cancel-accepted', rule: 'terminal-cancel-refused', verdict: 'fail' },
    { fault: 'ttl-overridden', rule: 'requested-ttl-honoured', verdict: 'info' },
  ];

  // Side by side (vitest's default of five at a time): each case has a session of its own on the shared
  // receiver, and most of a case's time is its tasks running their course.
  it.concurrent.for(cases)(
    '$fault breaks $rule ($verdict) and nothing else',
    { timeout: 25_000 },
    async ({ fault, rule, verdict, extra }, { onTestFinished, expect }) => {
      const run = await connect(hostile.faultsUrl([fault]), onTestFinished);
      await session(run);
      await extra?.(run);
      await waitFor(() => verdicts(card(run))[rule] === verdict, 6000).catch(() => undefined);
      onlyBroken(card(run), rule, verdict, expect);
    },
  );
});

describe('report card on real receivers', () => {
  let receiver: RunningReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it('the demo receiver: no fail, no warning', async ({ onTestFinished }) => {
    receiver = await startDemoReceiver();
    const run = await connect(receiver.url, onTestFinished);
    const done = await create(run, 'slow_job', { durationMs: 300, steps: 1 }, 60_000);
    const failed = await create(run, 'flaky_job', { failAfterMs: 300, reason: 'quota' }, 60_000);
    const brief = await create(run, 'short_ttl_job', { ttlMs: 1000, durationMs: 100 });
    const cancelled = await create(run, 'slow_job', { durationMs: 600_000, steps: 2, pollIntervalMs: 200 });
    run.tracker.track('never-was-a-task', { origin: 'manual' });
    await waitFor(() => (record(run, cancelled)?.pollCount ?? 0) >= 1, 5000);
    await run.tracker.cancel(cancelled);
    await waitFor(() => [done, failed].every((id) => record(run, id)?.result.state === 'fetched'), 8000);
    await settle(run.tracker.syncList());
    await settle(run.session.request('tasks/cancel', { taskId: done }));
    await waitFor(() => record(run, brief)?.lifecycle === 'purged', 8000);
    const c = card(run);
    expect(c.rules.filter((r) => r.verdict === 'fail' || r.verdict === 'warn')).toEqual([]);
    expect(verdicts(c)).toMatchObject({
      'status-transitions': 'pass',
      'result-related-meta': 'pass',
      'ttl-not-purged-early': 'pass',
      'unknown-task-error': 'pass',
      'terminal-cancel-refused': 'pass',
    });
  }, 25_000);

  it('the demo receiver with ?faults= is served by the faults case: the card shows the broken rule', async ({
    onTestFinished,
  }) => {
    receiver = await startDemoReceiver();
    const run = await connect(`${receiver.url}?faults=no-related-meta`, onTestFinished);
    expect(run.session.describeServer().name).toBe('hostile-faults?no-related-meta');
    const id = await create(run, 'job', { durationMs: 200, pollInterval: 100 }, 60_000);
    await waitFor(() => record(run, id)?.result.state === 'fetched', 5000);
    expect(verdicts(card(run))['result-related-meta']).toBe('fail');
  }, 15_000);

  it('server-everything: no fail; what is not pass is explained', async ({ onTestFinished }) => {
    receiver = await startEverything();
    const run = await connect(receiver.url, onTestFinished);
    // It answers ttl 300 s whatever is asked: nothing here waits for an expiry.
    const id = await create(run, 'simulate-research-query', { topic: 'tides' }, 5000);
    run.tracker.track('never-was-a-task', { origin: 'manual' });
    await waitFor(() => record(run, id)?.result.state === 'fetched', 15_000);
    await settle(run.tracker.syncList());
    const c = card(run);
    expect(c.rules.filter((r) => r.verdict === 'fail')).toEqual([]);
    for (const r of c.rules) expect(r.reason.length, r.id).toBeGreaterThan(10);
    // It changes the ttl asked for: allowed (MAY), said as information.
    expect(verdicts(c)['requested-ttl-honoured']).toBe('info');
    expect(c.rules.find((r) => r.id === 'requested-ttl-honoured')?.reason).toMatch(/another ttl/);
  }, 30_000);
});
