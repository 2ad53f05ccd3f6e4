import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import type { Batch, InboxRequest } from '../../src/engine/messages';
import { startHostileReceiver, type CaseName, type HostileReceiver } from '../servers/hostile/receiver';
import { engineOverChannel } from '../helpers/engine-channel';
import { waitFor } from '../helpers/wait';

/**
 * The engine against the receiver that misbehaves on purpose (test/servers/hostile), through the page's
 * message boundary: what the receiver counts (per case, per task, with arrival times on its clock) stays
 * within what the rules allow, and the page is told what is wrong (the task's record and warnings, the
 * connection's news, the list's status, the inbox). Where "no more requests" must be shown, the test waits
 * for a request that comes later than the one a broken engine would send (a later poll of another task),
 * never for a stretch of time. How these records are drawn is held by jsdom tests next to the components.
 */
let hostile: HostileReceiver;
beforeAll(async () => {
  hostile = await startHostileReceiver();
});
afterAll(async () => {
  await hostile.close();
});

/**
 * A fresh engine connected to one case, reset first so its counts are this test's; closed when the test ends
 * (each test has a case of its own, so the tests run at once: most of their time is the receiver's pace).
 */
async function open(
  name: CaseName,
  { onTestFinished }: TestContext,
  { fetchImpl, paused = false }: { fetchImpl?: typeof fetch; paused?: boolean } = {},
) {
  hostile.reset(name);
  const engine = engineOverChannel({ history: async () => null, fetch: fetchImpl });
  onTestFinished(() => engine.close());
  const connected = await engine.bridge.request({
    type: 'connect',
    connectionId: 1,
    url: hostile.caseUrl(name),
    headers: {},
    settings: { paused, minPollIntervalMs: 0 },
  });
  expect(connected.ok).toBe(true);
  const task = (taskId: string) => engine.tasks.getState().tasks.get(taskId);
  /** Every warning the normaliser put on the task's timeline. */
  const warnings = (taskId: string) =>
    (task(taskId)?.entries ?? []).flatMap((e) =>
      e.kind === 'observation' || e.kind === 'result' ? e.warnings.map((w) => w.message) : [],
    );
  const news = <K extends keyof Batch>(key: K) =>
    engine.batches.map((b) => b[key]).filter((v): v is NonNullable<Batch[K]> => v !== undefined);
  await waitFor(() => engine.tasks.getState().order.length > 0, 30_000);
  return { ...engine, task, warnings, news };
}

const gets = (name: CaseName) => hostile.counts(name).methods['tasks/get'] ?? 0;
/** tasks/get the receiver was sent for one task, and when each arrived (its clock). */
const getsOf = (name: CaseName, taskId: string) =>
  hostile.counts(name).tasksGet[taskId] ?? { count: 0, at: [] };
const gapsBetween = (at: number[]) => at.slice(1).map((t, i) => t - at[i]!);

describe.concurrent('the engine against the hostile receiver', () => {
  it('huge-interval: pollInterval 1e12 and 2^31 ms are waited out (no poll at all), flagged as over an hour; Poll now asks once', async (ctx) => {
    const e = await open('huge-interval', ctx);
    const polls = (taskId: string) => getsOf('huge-interval', taskId).count;
    /** Poll now on a task, and the poll seen by the receiver and in the task's record. */
    const pollNow = async (taskId: string) => {
      const before = polls(taskId);
      await e.bridge.request({ type: 'pollNow', taskId });
      await waitFor(() => polls(taskId) === before + 1 && e.task(taskId)?.pollCount === before + 1, 10_000);
    };
    expect(e.task('interval-1e12')?.nextPollInMs).toBe(1e12);
    expect(e.task('interval-2pow31')?.nextPollInMs).toBe(2 ** 31);
    expect(e.warnings('interval-1e12').join()).toContain('over an hour');
    expect(e.warnings('interval-2pow31').join()).toContain('over an hour');
    // A timer past setTimeout's limit fires at once: a poll within a millisecond of the listing. The other
    // task's Poll now, sent after that, comes later than that poll would have.
    await pollNow('interval-2pow31');
    expect(polls('interval-1e12')).toBe(0);
    // Poll now asks once; the next poll is 31.7 years away again, not at once: the other task's next Poll
    // now comes after the answer was handled, later than a re-poll at once would have.
    await pollNow('interval-1e12');
    expect(e.task('interval-1e12')?.nextPollInMs).toBe(1e12);
    await pollNow('interval-2pow31');
    expect(polls('interval-1e12')).toBe(1);
    expect(polls('interval-2pow31')).toBe(2);
    expect(gets('huge-interval')).toBe(3);
  }, 60_000);

  it.for([
    ['retry-after-http', 'rate-limited-http'],
    ['retry-after-rpc', 'rate-limited-rpc'],
  ] as const)(
    '%s: a Retry-After of 4,000 s is honoured, and the task says it is rate limited',
    { timeout: 60_000 },
    async ([name, limited], ctx) => {
      const e = await open(name, ctx);
      await waitFor(() => e.task(limited)?.rateLimitedCount === 1, 10_000);
      const record = e.task(limited)!;
      expect(record.lastError?.kind).toBe('rate-limited');
      // The wait in force is the receiver's 4,000 s (less the moments since), not a backoff of a second or two.
      expect(record.nextPollInMs).toBeGreaterThan(3_900_000);
      expect(record.nextPollInMs).toBeLessThanOrEqual(4_000_000);
      // A task started now is first polled a pollInterval (1 s) later. Had the first task's Retry-After been
      // ignored, it would have been polled again a backoff (1 s) after its 429, which came before this start.
      const { tools } = await e.bridge.request({ type: 'listTools' });
      const run = await e.bridge.request({
        type: 'run',
        tool: tools.find((t) => t.name === 'job') as ToolInfo,
        args: {},
      });
      if (!run.ok || run.taskId === undefined) throw new Error('the job did not start a task');
      const started = run.taskId;
      await waitFor(() => getsOf(name, started).count >= 1, 10_000);
      // One poll, then a wait of over an hour.
      expect(getsOf(name, limited).count).toBe(1);
      expect(e.task(limited)?.pollCount).toBe(1);
    },
  );

  it('sse-retry-zero: stream reopens keep a floor of 1 s and back off, and the connection says why', async (ctx) => {
    // When the engine opened each stream (a GET), by this process's clock.
    const opened: number[] = [];
    const watched: typeof fetch = (input, init) => {
      if (
        (init?.method ?? 'GET') === 'GET' &&
        String(input instanceof Request ? input.url : input).includes('/sse-retry-zero/')
      )
        opened.push(performance.now());
      return fetch(input, init);
    };
    const e = await open('sse-retry-zero', ctx, { fetchImpl: watched });
    await waitFor(() => e.news('connection').some((c) => c.streamNote !== undefined), 15_000);
    const note = e.news('connection').find((c) => c.streamNote !== undefined)!.streamNote!;
    expect(note).toContain('notification stream closed');
    // Three opens, where retry: 0 asks for thousands: a floor of 1 s between them, and the second gap
    // doubled (2 s, then 4 s apart). A busy machine only lengthens the gaps.
    await waitFor(() => opened.length >= 3, 20_000);
    const gaps = gapsBetween(opened.slice(0, 3));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1000);
    expect(gaps[1]).toBeGreaterThanOrEqual(2000);
    expect(hostile.counts('sse-retry-zero').GET).toBeLessThanOrEqual(opened.length);
  }, 60_000);

  it('deep-result: a result nested 100,000 deep crosses to the page cut at 64 levels, with a warning', async (ctx) => {
    const e = await open('deep-result', ctx);
    await waitFor(() => e.task('deep')?.result.state === 'fetched', 10_000);
    expect(e.warnings('deep').join()).toContain('nested deeper than 64 levels');
    // The cut result went through structured clone to the page, as the result view gets it.
    const result = e
      .news('results')
      .flat()
      .find(([id]) => id === 'deep')?.[1];
    expect(result?.warnings.map((w) => w.message).join()).toContain('nested deeper than 64 levels');
    let depth = 0;
    for (
      let v: unknown = result?.value.result?.structuredContent;
      typeof v === 'object' && v !== null;
      depth++
    )
      v = (v as Record<string, unknown>).a;
    expect(depth).toBeGreaterThan(0);
    expect(depth).toBeLessThanOrEqual(65);
    // A completed task: one tasks/result, no polling.
    expect(hostile.counts('deep-result').methods['tasks/result']).toBe(1);
    expect(gets('deep-result')).toBeLessThanOrEqual(2);
  }, 60_000);

  it('resource-result: a tool task’s result that is no CallToolResult is a warning on the task, shown as it came', async (ctx) => {
    const e = await open('resource-result', ctx);
    await waitFor(() => e.task('resource-result')?.result.state === 'fetched', 10_000);
    expect(e.warnings('resource-result')).toEqual([
      expect.stringMatching(
        /^not a CallToolResult: no content array \(contents is what resources\/read answers/,
      ),
    ]);
    expect(e.task('resource-result')?.warningCount).toBe(1);
    const result = e
      .news('results')
      .flat()
      .find(([id]) => id === 'resource-result')?.[1];
    expect(result?.value.result).toMatchObject({ contents: [{ uri: 'file:///report.txt' }] });
    expect(result?.warnings).toHaveLength(1);
  }, 30_000);

  it('huge-status: a 20 MB statusMessage is cut to 4,000 characters and flagged, polling at its interval', async (ctx) => {
    const e = await open('huge-status', ctx);
    await waitFor(() => e.warnings('huge-status').some((w) => w.includes('cut to 4000')), 30_000);
    const snapshot = e
      .news('snapshots')
      .flat()
      .filter(([id]) => id === 'huge-status')
      .at(-1)?.[1];
    expect(snapshot?.statusMessage?.length).toBeGreaterThan(1000);
    expect(snapshot?.statusMessage?.length).toBeLessThanOrEqual(4001);
    // pollInterval 1 s: three more polls (it goes on polling), each at least half an interval after the last
    // as the receiver saw them (a poll waits for the 20 MB answer, then the interval).
    const before = getsOf('huge-status', 'huge-status').count;
    await waitFor(() => getsOf('huge-status', 'huge-status').count >= before + 3, 40_000);
    expect(Math.min(...gapsBetween(getsOf('huge-status', 'huge-status').at))).toBeGreaterThanOrEqual(500);
  }, 90_000);

  it('notification-flood: pushes for unknown tasks past the cap are counted and offered, not followed', async (ctx) => {
    const e = await open('notification-flood', ctx);
    await waitFor(() => e.tasks.getState().untrackedSeen > 0, 15_000);
    // The listed task and at most AUTO_TRACK_PER_MINUTE (200) pushed ids are followed.
    expect(e.tasks.getState().order.length).toBeLessThanOrEqual(201);
    expect(e.task('flood-listed')?.lifecycle).toBe('live');
  }, 60_000);

  it.for(['endless-list', 'huge-list'] as const)(
    '%s: tasks/list paging stops at its cap and says so',
    { timeout: 60_000 },
    async (name, ctx) => {
      // Polling paused: the listing is what is checked, not 5,000 tasks polled at 1 s.
      const e = await open(name, ctx, { paused: true });
      await waitFor(() => e.news('listStatus').some((s) => s.stopped !== undefined), 30_000);
      expect(e.news('listStatus').find((s) => s.stopped)?.stopped).toMatch(/^tasks\/list stopped/);
      expect(hostile.counts(name).methods['tasks/list'] ?? 0).toBeLessThanOrEqual(100);
    },
  );

  it.for([
    ['silent-get', 'silent'],
    ['endless-sse-answer', 'endless-sse'],
  ] as const)(
    '%s: a poll that never ends is aborted at its deadline; the task and the connection say so',
    { timeout: 60_000 },
    async ([name, taskId], ctx) => {
      const e = await open(name, ctx);
      await waitFor(() => e.task(taskId)?.lastError?.kind === 'timeout', 15_000);
      expect(e.task(taskId)?.lastError?.message).toMatch(/^Receiver not answering/);
      // The header shows Degraded from this news.
      await waitFor(() => e.news('connection').some((c) => c.degraded), 15_000);
      expect(e.news('connection').find((c) => c.degraded)?.degraded?.error.kind).toBe('timeout');
      // A poll at 1 s, aborted at its deadline, the next after a backoff: a handful, never a storm.
      expect(gets(name)).toBeLessThanOrEqual(4);
    },
  );

  it('wrong-id: an answer carrying another JSON-RPC id is an error at once, then backoff', async (ctx) => {
    const e = await open('wrong-id', ctx);
    await waitFor(
      () => getsOf('wrong-id', 'wrong-id').count >= 3 && e.task('wrong-id')?.pollCount === 3,
      20_000,
    );
    const errors = e.task('wrong-id')!.entries.filter((x) => x.kind === 'error');
    expect(errors.length).toBeGreaterThanOrEqual(2);
    for (const entry of errors) {
      expect(entry.error.message).toContain('must carry its request');
      // Reported when the wrong answer came, not at the request's deadline a minute on.
      expect(entry.at - entry.sentAt!).toBeLessThan(5000);
    }
    // Each wrong answer is one failed poll, then backoff: 1, 2, 4 s apart, never a storm.
    expect(errors.map((x) => x.retryInMs).slice(0, 2)).toEqual([1000, 2000]);
    expect(gapsBetween(getsOf('wrong-id', 'wrong-id').at)[1]).toBeGreaterThanOrEqual(1500);
  }, 60_000);

  it('future-created: one task stamped a day ahead is flagged and left out of the clock offset; neither is taken for expired', async (ctx) => {
    const e = await open('future-created', ctx);
    await waitFor(() => e.warnings('from-tomorrow').some((w) => w.includes('ahead')), 10_000);
    expect(e.warnings('from-tomorrow').join()).toContain("ahead of this receiver's clock");
    expect(e.warnings('normal')).toEqual([]);
    // No purge probes, just polls at 1 s for two live tasks (each at least half an interval after the
    // last, as the receiver saw them arrive).
    for (const taskId of ['normal', 'from-tomorrow']) {
      await waitFor(() => getsOf('future-created', taskId).count >= 3, 15_000);
      expect(Math.min(...gapsBetween(getsOf('future-created', taskId).at))).toBeGreaterThanOrEqual(500);
      expect(e.task(taskId)?.lifecycle).toBe('live');
    }
    // The other task's TTL counts from its own createdAt: the clock offset stayed near zero.
    expect(Math.abs(e.tasks.getState().clockOffsetMs)).toBeLessThan(60_000);
  }, 60_000);

  it('ttl-absurd: ttl 1e300 is flagged as effectively no expiry, and polled at its interval', async (ctx) => {
    const e = await open('ttl-absurd', ctx);
    expect(e.warnings('ttl-1e300').join()).toContain('effectively no expiry');
    await waitFor(() => getsOf('ttl-absurd', 'ttl-1e300').count >= 3, 10_000);
    expect(Math.min(...gapsBetween(getsOf('ttl-absurd', 'ttl-1e300').at))).toBeGreaterThanOrEqual(500);
    expect(e.task('ttl-1e300')?.lifecycle).toBe('live');
  }, 60_000);

  it('elicitation-flood: 1,000 requests, 50 wait for a person, the rest are refused and counted', async (ctx) => {
    const e = await open('elicitation-flood', ctx);
    await waitFor(() => e.news('refused').some((r) => r.startsWith('950 ')), 40_000);
    expect(e.news('refused').at(-1)).toBe(
      '950 elicitation/create requests refused: 50 already wait for a person',
    );
    const asked = e
      .news('inbox')
      .flat()
      .filter((i) => i.kind === 'asked');
    expect(asked.length).toBe(50);
    // One tasks/result carried all the questions; the refusals went back as answers, one each at most.
    await waitFor(() => hostile.counts('elicitation-flood').responses === 950, 20_000);
    expect(hostile.counts('elicitation-flood').methods['tasks/result']).toBe(1);
  }, 60_000);

  it('wide-elicitation: a form of 10,000 fields reaches the page whole, over one tasks/result', async (ctx) => {
    const e = await open('wide-elicitation', ctx);
    await waitFor(
      () =>
        e
          .news('inbox')
          .flat()
          .some((i) => i.kind === 'asked'),
      15_000,
    );
    const asked = e
      .news('inbox')
      .flat()
      .find((i) => i.kind === 'asked') as { request: InboxRequest };
    const schema = asked.request.params.requestedSchema as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toHaveLength(10_000);
    expect(asked.request.relatedTaskId).toBe('wide-elicit');
    expect(hostile.counts('wide-elicitation').methods['tasks/result']).toBe(1);
  }, 60_000);
});
