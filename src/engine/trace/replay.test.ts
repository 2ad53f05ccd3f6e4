import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyError, isTerminal } from '../../mcp';
import type { InboxEvent } from '../messages';
import type { TrafficEvent } from '../../mcp';
import { VirtualClock, type RealTimers } from './replay-clock';
import { RecordedPort, RecordedError } from './replay-port';
import { ReplaySession, macrotask } from './replay';
import { parseTraceText } from './schema';
import type { Trace, TraceTask } from './trace-types';

/** The trace the empty task list links to: recorded from the real demo receiver (npm run trace:demo). */
function demoTrace(): Trace {
  const parsed = parseTraceText(
    readFileSync(new URL('../../../public/demo-trace.json', import.meta.url), 'utf8'),
  );
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return parsed.trace;
}

/** Real time under the test's control: timers fire only when advance() says, each followed by its work. */
/** `lateMs`: how late every timer fires, as a busy browser's do. */
function fakeRealTimers(lateMs = 0) {
  let now = 1_000_000;
  let nextId = 1;
  const timers = new Map<number, { due: number; fn: () => void }>();
  const timersApi: RealTimers = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = nextId++;
      timers.set(id, { due: now + ms + lateMs, fn });
      return id;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
  };
  return {
    timers: timersApi,
    now: () => now,
    async advance(ms: number) {
      const target = now + ms;
      for (;;) {
        let first: [number, { due: number; fn: () => void }] | undefined;
        for (const entry of timers) if (!first || entry[1].due < first[1].due) first = entry;
        if (!first || first[1].due > target) break;
        timers.delete(first[0]);
        now = Math.max(now, first[1].due);
        first[1].fn();
        await macrotask();
      }
      now = target;
    },
  };
}

function startReplay(trace: Trace, real?: RealTimers) {
  const traffic: TrafficEvent[] = [];
  const inbox: InboxEvent[] = [];
  const session = new ReplaySession(
    trace,
    7,
    { traffic: (e) => traffic.push(e), inbox: (e) => inbox.push(e), changed: () => undefined },
    { real },
  );
  return { session, traffic, inbox };
}

const byTool = (trace: Trace, tool: string, status?: string) =>
  trace.tasks.find((t) => t.tool === tool && (status === undefined || t.status === status)) as TraceTask;

describe('VirtualClock', () => {
  it('runs timers at the chosen speed, stands still when paused, and runs ahead in due order when driven', async () => {
    const real = fakeRealTimers();
    const clock = new VirtualClock(5_000, real.timers);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`a@${clock.now()}`), 4000);
    clock.setTimeout(() => fired.push(`b@${clock.now()}`), 8000);
    clock.setSpeed(4);
    clock.play();
    await real.advance(999);
    expect(fired).toEqual([]);
    await real.advance(1);
    expect(fired).toEqual(['a@9000']);
    clock.pause();
    await real.advance(60_000);
    expect(clock.now()).toBe(9000);
    expect(fired).toHaveLength(1);
    clock.setTimeout(() => fired.push(`c@${clock.now()}`), 500);
    await clock.runUntil(20_000, macrotask);
    expect(fired).toEqual(['a@9000', 'c@9500', 'b@13000']);
    expect(clock.now()).toBe(20_000);
  });

  it('holds delays longer than a real timer can', async () => {
    const real = fakeRealTimers();
    const clock = new VirtualClock(0, real.timers);
    let fired = false;
    clock.setTimeout(() => (fired = true), 2 ** 33);
    clock.play();
    await real.advance(2 ** 31);
    expect(fired).toBe(false);
    await real.advance(2 ** 33);
    expect(fired).toBe(true);
  });
});

describe('VirtualClock: dispose and seeks', () => {
  it('never restarts once disposed: runUntil, play and new timers do nothing', async () => {
    const real = fakeRealTimers();
    const clock = new VirtualClock(1_000, real.timers);
    const fired: number[] = [];
    clock.setTimeout(() => fired.push(1), 100);
    clock.dispose();
    await clock.runUntil(10_000, macrotask);
    clock.play();
    clock.setTimeout(() => fired.push(2), 10);
    await real.advance(60_000);
    expect(fired).toEqual([]);
    expect(clock.playing).toBe(false);
    expect(clock.now()).toBe(1_000);
    expect(clock.pending()).toBe(0);
  });

  it('stops a drive disposed half-way, and does not start playing after it', async () => {
    const real = fakeRealTimers();
    const clock = new VirtualClock(0, real.timers);
    const fired: number[] = [];
    clock.setTimeout(() => {
      fired.push(1);
      clock.dispose();
    }, 10);
    clock.setTimeout(() => fired.push(2), 20);
    clock.play();
    await clock.runUntil(100, macrotask);
    expect(fired).toEqual([1]);
    expect(clock.playing).toBe(false);
  });

  it('holds a play that comes during a seek’s drive until the drive is over', async () => {
    const real = fakeRealTimers();
    const clock = new VirtualClock(0, real.timers);
    const seen: Array<[number, boolean]> = [];
    clock.setTimeout(() => clock.play(), 10);
    clock.setTimeout(() => seen.push([clock.now(), clock.playing]), 20);
    await clock.runUntil(50, macrotask);
    // During the drive time moved only by the drive, and stood still between timers.
    expect(seen).toEqual([[20, false]]);
    expect(clock.now()).toBe(50);
    expect(clock.playing).toBe(true);
    await real.advance(10);
    expect(clock.now()).toBe(60);
  });

  it('keeps a paused replay paused when a pause comes during the drive of a playing one', async () => {
    const real = fakeRealTimers();
    const clock = new VirtualClock(0, real.timers);
    clock.play();
    clock.setTimeout(() => clock.pause(), 10);
    await clock.runUntil(50, macrotask);
    expect(clock.playing).toBe(false);
    await real.advance(1_000);
    expect(clock.now()).toBe(50);
  });
});

describe('RecordedPort', () => {
  it('answers tasks/get with what the task said last at the current virtual time, and -32602 after its purge', async () => {
    const trace = demoTrace();
    const task = byTool(trace, 'short_ttl_job');
    const observations = task.entries.filter((e) => e.kind === 'observation' && e.status !== null);
    const purge = task.entries.find((e) => e.kind === 'purged');
    expect(purge).toBeDefined();
    let now = task.firstSeenAt;
    const port = new RecordedPort(
      trace.tasks,
      () => now,
      () => true,
    );
    const first = await port.getTask(task.taskId);
    expect(first.value?.status).toBe(observations[0]?.kind === 'observation' && observations[0].status);
    const lastAlive = observations.at(-1)?.at ?? 0;
    now = lastAlive;
    expect((await port.getTask(task.taskId)).value?.status).toBe('completed');
    // Purged some time after the last answer that knew it: from then on, never before it.
    now = lastAlive + 1;
    const refused = await port.getTask(task.taskId).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RecordedError);
    expect(classifyError(refused, { method: 'tasks/get', knownTask: true }).kind).toBe('purged');
  });

  it('lists only tasks first seen by now, and gives results from the task records', async () => {
    const trace = demoTrace();
    let now = trace.startedAt - 1;
    const port = new RecordedPort(
      trace.tasks,
      () => now,
      () => true,
    );
    expect((await port.listTasks()).tasks).toHaveLength(0);
    now = trace.endedAt;
    expect((await port.listTasks()).tasks.map((t) => t.taskId).sort()).toEqual(
      trace.tasks
        .filter((t) => t.lifecycle !== 'purged')
        .map((t) => t.taskId)
        .sort(),
    );
    const done = byTool(trace, 'ask_user');
    expect((await port.getTaskResult(done.taskId)).value).toEqual(done.result?.value);
  });
});

describe('ReplaySession', () => {
  it('replays a preserved log with a two-day-old task still polling, to the end, instantly', async () => {
    const demo = demoTrace();
    const twoDays = 2 * 86_400_000;
    // Every recorded time moved two days back: a task restored from history, last seen working then.
    const shift = (value: unknown): unknown =>
      typeof value === 'number' && value >= demo.startedAt - 60_000 && value <= demo.endedAt + 60_000
        ? value - twoDays
        : Array.isArray(value)
          ? value.map(shift)
          : value && typeof value === 'object'
            ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shift(v)]))
            : value;
    const flaky = byTool(demo, 'flaky_job');
    const restored = {
      ...(shift(flaky) as TraceTask),
      taskId: 'restored-two-days-ago',
      status: 'working',
      result: undefined,
      entries: (shift(flaky.entries) as TraceTask['entries']).filter(
        (e) => e.kind === 'observation' && e.status === 'working',
      ),
    };
    const parsed = parseTraceText(
      JSON.stringify({ ...demo, startedAt: demo.startedAt - twoDays, tasks: [restored, ...demo.tasks] }),
    );
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const { session, traffic } = startReplay(parsed.trace);
    await session.start(parsed.trace.startedAt, 'instant');
    expect(session.news().ended).toBe(true);
    const { tasks } = session.tracker.store.getState();
    expect(tasks.get('restored-two-days-ago')?.status).toBe('working');
    // Polling every 500 ms for two days would be some 350,000 polls: the idle stretch is cut down to 2 s,
    // and the task is polled through the recording's 11 s and those 2 s only (counted, not timed).
    expect(tasks.get('restored-two-days-ago')?.pollCount).toBeGreaterThan(0);
    expect(tasks.get('restored-two-days-ago')?.pollCount).toBeLessThan(100);
    for (const recorded of demo.tasks) expect(tasks.get(recorded.taskId)?.status).toBe(recorded.status);
    expect(traffic).toHaveLength(demo.traffic.length);
    session.dispose();
  }, 30_000);

  it('plays the demo trace instantly to every task’s recorded end, with its results, inbox and traffic', async () => {
    const trace = demoTrace();
    const { session, traffic, inbox } = startReplay(trace);
    await session.start(trace.startedAt, 'instant');
    const { tasks, order } = session.tracker.store.getState();
    expect(order).toEqual(trace.tasks.map((t) => t.taskId));
    for (const recorded of trace.tasks) {
      const replayed = tasks.get(recorded.taskId);
      expect(replayed?.status, recorded.tool).toBe(recorded.status);
      expect(replayed?.lifecycle, recorded.tool).toBe(recorded.lifecycle);
      expect(replayed?.tool).toBe(recorded.tool);
      if (recorded.result) {
        expect(replayed?.result.state).toBe('fetched');
        expect(
          session.queryClient.getQueryData(['taskscope', 'connection', 7, 'task', recorded.taskId, 'result']),
        ).toEqual(recorded.result);
      }
    }
    const cancelled = tasks.get(byTool(trace, 'slow_job', 'cancelled').taskId);
    expect(cancelled?.entries.some((e) => e.kind === 'observation' && e.source === 'cancel')).toBe(true);
    const asked = tasks.get(byTool(trace, 'ask_user').taskId);
    expect(
      asked?.entries.filter((e) => e.kind === 'input').map((e) => e.kind === 'input' && e.phase),
    ).toEqual(expect.arrayContaining(['asked', 'answered']));
    expect(inbox.map((e) => e.kind)).toEqual(trace.inbox.map((e) => e.kind));
    expect(traffic).toHaveLength(trace.traffic.length);
    expect(session.news().ended).toBe(true);
    session.dispose();
  });

  it('plays a task the report card’s check started back marked as the check’s', async () => {
    const trace = demoTrace();
    const marked = byTool(trace, 'slow_job', 'cancelled');
    trace.tasks = trace.tasks.map((t) => (t === marked ? { ...t, startedBy: 'check' } : t));
    const { session } = startReplay(trace);
    await session.start(trace.startedAt, 'instant');
    const { tasks } = session.tracker.store.getState();
    expect(tasks.get(marked.taskId)?.startedBy).toBe('check');
    expect([...tasks.values()].filter((t) => t.startedBy !== undefined)).toHaveLength(1);
    session.dispose();
  });

  it('seeks: the tasks first seen by then are there, in the state they had, and the rest come later', async () => {
    const trace = demoTrace();
    const cancelledTask = byTool(trace, 'slow_job', 'cancelled');
    const cancelAt =
      cancelledTask.entries.find((e) => e.kind === 'observation' && e.source === 'cancel')?.at ?? 0;
    const at = cancelAt - 300;
    const real = fakeRealTimers(5);
    const { session } = startReplay(trace, real.timers);
    await session.start(at, 1);
    const state = session.tracker.store.getState();
    expect(state.order).toEqual(trace.tasks.filter((t) => t.firstSeenAt <= at).map((t) => t.taskId));
    expect(state.tasks.get(cancelledTask.taskId)?.status).toBe('working');
    expect(session.news()).toMatchObject({ playing: true, speed: 1 });
    expect(session.news().at).toBeGreaterThanOrEqual(at);
    await real.advance(1500);
    const replayed = session.tracker.store.getState().tasks.get(cancelledTask.taskId);
    expect(replayed?.status).toBe('cancelled');
    // The recorded cancel is answered as recorded, though the replay's timers fire a little late.
    expect(replayed?.entries.filter((e) => e.kind === 'observation' && e.source === 'cancel')).toHaveLength(
      1,
    );
    expect(replayed?.entries.some((e) => e.kind === 'error')).toBe(false);
    session.dispose();
  });

  it('plays at 4× four times as fast as at 1×', async () => {
    const trace = demoTrace();
    const realSpan = (session: ReplaySession) => session.end - trace.startedAt;
    const fast = fakeRealTimers();
    const quick = startReplay(trace, fast.timers).session;
    await quick.start(trace.startedAt, 4);
    await fast.advance(realSpan(quick) / 4 + 50);
    expect(quick.news().ended).toBe(true);
    const allEnded = (s: ReplaySession) =>
      [...s.tracker.store.getState().tasks.values()].every((t) => isTerminal(t.status));
    expect(allEnded(quick)).toBe(true);
    quick.dispose();

    const slow = fakeRealTimers();
    const steady = startReplay(trace, slow.timers).session;
    await steady.start(trace.startedAt, 1);
    await slow.advance(realSpan(steady) / 4 + 50);
    expect(steady.news().ended).toBe(false);
    expect(allEnded(steady)).toBe(false);
    await slow.advance(realSpan(steady));
    expect(steady.news().ended).toBe(true);
    expect(allEnded(steady)).toBe(true);
    steady.dispose();
  });

  it('a seek while paused lands there and stays paused', async () => {
    const trace = demoTrace();
    const real = fakeRealTimers();
    const { session } = startReplay(trace, real.timers);
    await session.start(trace.startedAt + 2000, 1, false);
    expect(session.news()).toMatchObject({ at: trace.startedAt + 2000, playing: false, ended: false });
    await real.advance(10_000);
    expect(session.news().at).toBe(trace.startedAt + 2000);
    session.dispose();
  });

  it('pauses: time and tasks stand still until play', async () => {
    const trace = demoTrace();
    const real = fakeRealTimers();
    const { session } = startReplay(trace, real.timers);
    await session.start(trace.startedAt, 1);
    await real.advance(1000);
    session.pause();
    const at = session.news().at;
    const version = session.tracker.store.getState().version;
    await real.advance(20_000);
    expect(session.news().at).toBe(at);
    expect(session.tracker.store.getState().version).toBe(version);
    session.play();
    await real.advance(1000);
    expect(session.news().at).toBeGreaterThan(at);
    session.dispose();
  });
});

describe('opening a trace', () => {
  it('refuses a malformed trace and says why', () => {
    expect(parseTraceText('{"format":"taskscope-trace","version":1,"tasks":"no"}')).toMatchObject({
      ok: false,
    });
    const trace = demoTrace();
    const broken = JSON.parse(JSON.stringify(trace)) as { tasks: Array<{ entries: unknown }> };
    (broken.tasks[0] as { entries: unknown }).entries = [{ kind: 'observation', at: 'soon' }];
    const parsed = parseTraceText(JSON.stringify(broken));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors.join('\n')).toMatch(/tasks\[0\]\.entries\[0\]/);
  });
});
