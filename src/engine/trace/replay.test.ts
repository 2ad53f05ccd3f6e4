import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isTerminal } from '../../mcp';
import type { InboxEvent } from '../messages';
import type { TrafficEvent } from '../../mcp';
import { fakeRealTimers } from '../../../test/helpers/fake-real-timers';
import { VirtualClock, type RealTimers } from './replay-clock';
import { RecordedTasks } from './replay-records';
import { createQueryClient, queryKeys } from '../../tracker/queries';
import { ReplaySession, macrotask } from './replay';
import { parseTraceText } from './schema';
import type { Trace, TraceTask } from './schema';

/** The trace the empty task list links to: recorded from the real demo receiver (npm run trace:demo). */
function demoTrace(): Trace {
  const parsed = parseTraceText(
    readFileSync(new URL('../../../public/demo-trace.json', import.meta.url), 'utf8'),
  );
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return parsed.trace;
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

describe('RecordedTasks', () => {
  it('puts each entry back as recorded, with the status, lifecycle, snapshot and result the live tracker gave', () => {
    const trace = demoTrace();
    const task = byTool(trace, 'short_ttl_job');
    const queryClient = createQueryClient({ sharing: false });
    const records = new RecordedTasks(queryClient, 7);
    records.appear(task);
    const record = () => records.store.getState().tasks.get(task.taskId);
    expect(record()).toMatchObject({
      status: null,
      lifecycle: 'live',
      entries: [],
      firstSeenAt: task.firstSeenAt,
    });
    const completedAt = task.entries.findIndex((e) => e.kind === 'observation' && e.status === 'completed');
    task.entries.forEach((entry, i) => {
      records.apply(task, entry, undefined, i === task.entries.length - 1);
      if (i === completedAt) {
        expect(record()).toMatchObject({
          status: 'completed',
          lifecycle: 'terminal',
          result: { state: 'none' },
        });
        expect(records.snapshot(task.taskId)?.status).toBe('completed');
        expect(queryClient.getQueryData(queryKeys.task(7, task.taskId))).toBe(records.snapshot(task.taskId));
      }
      if (entry.kind === 'result') {
        expect(record()?.result).toEqual({ state: 'fetched', at: entry.at });
        expect(queryClient.getQueryData(queryKeys.taskResult(7, task.taskId))).toEqual(task.result);
      }
    });
    expect(record()?.entries).toEqual(task.entries);
    expect(record()).toMatchObject({ status: 'completed', lifecycle: 'purged', nextPollInMs: null });
    expect(record()?.pollCount).toBe(
      task.entries.filter((e) => e.kind === 'observation' && e.source === 'poll').length,
    );
  });

  it('says a result is unavailable when the trace recorded its fetch but not its body', () => {
    const trace = demoTrace();
    const task = { ...byTool(trace, 'flaky_job'), result: undefined };
    const records = new RecordedTasks(createQueryClient({ sharing: false }), 7);
    records.appear(task);
    task.entries.forEach((entry, i) => records.apply(task, entry, undefined, i === task.entries.length - 1));
    const record = records.store.getState().tasks.get(task.taskId);
    expect(record?.result).toMatchObject({ state: 'unavailable', error: { kind: 'other' } });
    expect(record?.entries).toEqual(task.entries);
  });

  it('keeps an ended task ended when a later answer says otherwise, as the tracker did', () => {
    const trace = demoTrace();
    const task = byTool(trace, 'flaky_job');
    const records = new RecordedTasks(createQueryClient({ sharing: false }), 7);
    records.appear(task);
    for (const entry of task.entries) records.apply(task, entry, undefined, false);
    const last = task.entries.findLast((e) => e.kind === 'observation');
    if (last?.kind !== 'observation') throw new Error('no observation');
    records.apply(task, { ...last, at: last.at + 500, source: 'probe', status: 'working' }, undefined, false);
    expect(records.store.getState().tasks.get(task.taskId)).toMatchObject({
      status: 'failed',
      lifecycle: 'terminal',
    });
  });
});

describe('ReplaySession', () => {
  it('replays a preserved log with a two-day-old task still working, to the end, instantly', async () => {
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
    const { tasks } = session.tasks.store.getState();
    expect(tasks.get('restored-two-days-ago')?.status).toBe('working');
    // Its polls are the recorded ones: a replay asks nothing again, however long the gap after them.
    expect(tasks.get('restored-two-days-ago')?.pollCount).toBe(
      restored.entries.filter((e) => e.kind === 'observation' && e.source === 'poll').length,
    );
    expect(tasks.get('restored-two-days-ago')?.entries).toEqual(restored.entries);
    for (const recorded of demo.tasks) expect(tasks.get(recorded.taskId)?.status).toBe(recorded.status);
    expect(traffic).toHaveLength(demo.traffic.length);
    session.dispose();
  }, 30_000);

  it('plays the demo trace instantly to every task’s recorded end, with its results, inbox and traffic', async () => {
    const trace = demoTrace();
    const { session, traffic, inbox } = startReplay(trace);
    await session.start(trace.startedAt, 'instant');
    const { tasks, order } = session.tasks.store.getState();
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

  it('keeps a task’s entries in their recorded order when a hand-edited trace has their times go back', async () => {
    const trace = demoTrace();
    const task = byTool(trace, 'flaky_job');
    const entries = task.entries;
    // The third entry says it came 400 ms before the second.
    (entries[2] as { at: number }).at = (entries[1] as { at: number }).at - 400;
    const { session } = startReplay(trace);
    await session.start(trace.startedAt, 'instant');
    expect(session.tasks.store.getState().tasks.get(task.taskId)?.entries).toEqual(entries);
    session.dispose();
  });

  it('plays a task the report card’s check started back marked as the check’s', async () => {
    const trace = demoTrace();
    const marked = byTool(trace, 'slow_job', 'cancelled');
    trace.tasks = trace.tasks.map((t) => (t === marked ? { ...t, startedBy: 'check' } : t));
    const { session } = startReplay(trace);
    await session.start(trace.startedAt, 'instant');
    const { tasks } = session.tasks.store.getState();
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
    const state = session.tasks.store.getState();
    expect(state.order).toEqual(trace.tasks.filter((t) => t.firstSeenAt <= at).map((t) => t.taskId));
    expect(state.tasks.get(cancelledTask.taskId)?.status).toBe('working');
    expect(session.news()).toMatchObject({ playing: true, speed: 1 });
    expect(session.news().at).toBeGreaterThanOrEqual(at);
    await real.advance(1500);
    const replayed = session.tasks.store.getState().tasks.get(cancelledTask.taskId);
    expect(replayed?.status).toBe('cancelled');
    // The recorded cancel comes back once, as recorded, though the replay's timers fire a little late.
    expect(replayed?.entries.filter((e) => e.kind === 'observation' && e.source === 'cancel')).toHaveLength(
      1,
    );
    expect(replayed?.entries.some((e) => e.kind === 'error')).toBe(false);
    session.dispose();
  });

  it('plays a minute with nothing recorded before a purge whole: at 4× the purge comes 15 s later, at its recorded time', async () => {
    const trace = demoTrace();
    const task = byTool(trace, 'short_ttl_job');
    const purge = task.entries.find((e) => e.kind === 'purged');
    if (!purge) throw new Error('no purge');
    const lastBefore = Math.max(
      ...trace.tasks.flatMap((t) => t.entries.filter((e) => e !== purge).map((e) => e.at)),
      ...trace.traffic.map((e) => e.wallTime),
      ...trace.inbox.map((e) => (e.kind === 'asked' ? e.request.receivedAt : (e.at ?? 0))),
    );
    // The receiver purged it a minute after everything else.
    purge.at = lastBefore + 60_000;
    trace.endedAt = purge.at;
    const real = fakeRealTimers();
    const { session } = startReplay(trace, real.timers);
    await session.start(trace.startedAt, 4);
    const purgedYet = () => session.tasks.store.getState().tasks.get(task.taskId)?.lifecycle === 'purged';
    await real.advance((purge.at - trace.startedAt) / 4 - 10);
    expect(purgedYet()).toBe(false);
    await real.advance(10);
    expect(purgedYet()).toBe(true);
    expect(session.clock.now()).toBe(purge.at);
    expect(session.tasks.store.getState().tasks.get(task.taskId)?.entries.at(-1)).toEqual(purge);
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
      [...s.tasks.store.getState().tasks.values()].every((t) => isTerminal(t.status));
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
    const version = session.tasks.store.getState().version;
    await real.advance(20_000);
    expect(session.news().at).toBe(at);
    expect(session.tasks.store.getState().version).toBe(version);
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
