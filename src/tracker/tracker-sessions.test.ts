import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from './queries';
import { TaskTracker, type RestoredTask } from './tracker';
import { newTrackedTask, type TrackedTask } from './task-store';
import { ScriptedReceiver, rawTask } from '../../test/helpers/scripted-receiver';
import { rpcError } from '../../test/fixtures/shapes';
import type { TaskSnapshot } from '../mcp';

/** Tasks across sessions: restored from history, a session lost and a new one, Disconnect, Follow. */
let receiver: ScriptedReceiver;
let session: string | undefined;
let tracker: TaskTracker;
beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse('2026-12-01T10:00:00.000Z') });
  receiver = new ScriptedReceiver();
  session = 'A';
  tracker = new TaskTracker({
    api: receiver,
    queryClient: createQueryClient(),
    connectionId: 1,
    sessionId: () => session,
  });
});
afterEach(() => {
  tracker.dispose();
  expect(vi.getTimerCount()).toBe(0);
  vi.useRealTimers();
});

const snapshot = (taskId: string, status: TaskSnapshot['status'] = 'working'): TaskSnapshot => ({
  taskId,
  status,
  pollInterval: 1000,
  ttl: 60_000,
  createdAt: '2026-12-01T09:59:00.000Z',
  createdAtMs: Date.parse('2026-12-01T09:59:00.000Z'),
  shape: 'flat',
});

function restored(taskId: string, sessionId: string | undefined, status: TaskSnapshot['status'] = 'working') {
  const record = newTrackedTask({ taskId, connectionId: 9, origin: 'created', firstSeenAt: 0, sessionId });
  const { entries: _e, ...rest } = {
    ...record,
    status,
    lifecycle: status === 'working' ? ('live' as const) : ('terminal' as const),
    pollCount: 4,
    // What was in flight when the page went away is not in flight now.
    result: { state: 'fetching' as const, attempt: 1 },
  } satisfies TrackedTask;
  return { record: rest, entries: [], snapshot: snapshot(taskId, status) } satisfies RestoredTask;
}

const task = (taskId: string) => tracker.store.getState().tasks.get(taskId)!;

describe('tasks across sessions', () => {
  it('restored tasks are shown at once and polled only by what their session allows', async () => {
    receiver.onGet = async (taskId) => rawTask({ taskId, pollInterval: 1000 });
    tracker.restore([restored('same', 'A'), restored('ours', 'OLD'), restored('other', 'B')]);
    expect(tracker.store.getState().order).toEqual(['same', 'ours', 'other']);
    expect(task('same').connectionId).toBe(1);
    expect(task('same').result.state).toBe('none');
    await vi.advanceTimersByTimeAsync(5000);
    // Nothing is polled before a session is known.
    expect(receiver.count('tasks/get')).toBe(0);

    tracker.sessionReady('OLD');
    await vi.advanceTimersByTimeAsync(0);
    // This tab's ended session: asked once at once; known here, so followed in this session from now on,
    // with no "session ended" left on it (the history says both).
    expect(receiver.count('tasks/get', 'ours')).toBe(1);
    expect(task('ours').sessionId).toBe('A');
    expect(task('ours').sessionEndedAt).toBeUndefined();
    expect(task('ours').lifecycle).toBe('live');
    expect(
      task('ours')
        .entries.filter((e) => e.kind === 'session')
        .map((e) => e.phase),
    ).toEqual(['ended', 'known-again']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(receiver.count('tasks/get', 'same')).toBe(1);
    // Another session's task: shown, never polled by itself.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(receiver.count('tasks/get', 'other')).toBe(0);
    expect(task('other').otherSession).toBe(true);

    tracker.follow('other');
    await vi.advanceTimersByTimeAsync(0);
    expect(receiver.count('tasks/get', 'other')).toBe(1);
    expect(task('other').otherSession).toBeUndefined();
  });

  it('a task the receiver does not know in a new session ends as "session ended", never purged, and is not asked again', async () => {
    receiver.onGet = async (taskId) => rawTask({ taskId, pollInterval: 1000 });
    tracker.track('t1', { origin: 'created', initial: { value: snapshot('t1'), warnings: [] } });
    await vi.advanceTimersByTimeAsync(2000);
    expect(receiver.count('tasks/get', 't1')).toBe(2);

    tracker.sessionEnded({ final: false });
    session = 'NEW';
    receiver.onGet = async () => {
      throw rpcError(-32602, 'Task not found');
    };
    await vi.advanceTimersByTimeAsync(5000);
    // Between sessions, nothing is asked.
    expect(receiver.count('tasks/get', 't1')).toBe(2);
    tracker.sessionReady('A');
    await vi.advanceTimersByTimeAsync(0);
    expect(receiver.count('tasks/get', 't1')).toBe(3);
    expect(task('t1').lifecycle).toBe('session-ended');
    expect(task('t1').entries.some((e) => e.kind === 'purged')).toBe(false);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(receiver.count('tasks/get', 't1')).toBe(3);
  });

  it('a restored progress value says it is from before the reload until a new report replaces it', () => {
    const kept = restored('p', 'A');
    kept.record.progress = { progress: 1, total: 10, at: 5 };
    tracker.restore([kept]);
    expect(task('p').progress).toEqual({ progress: 1, total: 10, at: 5, restored: true });
  });

  it('Disconnect ends live tasks with their session and stops every timer; terminal ones stay terminal', async () => {
    receiver.onGet = async (taskId) => rawTask({ taskId, pollInterval: 1000 });
    tracker.track('live', { origin: 'created', initial: { value: snapshot('live'), warnings: [] } });
    tracker.restore([restored('done', 'A', 'completed')]);
    tracker.sessionEnded({ final: true });
    expect(task('live').lifecycle).toBe('session-ended');
    expect(task('done').lifecycle).toBe('terminal');
    expect(task('done').sessionEndedAt).toBeGreaterThan(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(receiver.count('tasks/get')).toBe(0);
  });

  it("an id pasted while no session is up belongs to the next session: followed there, not shown as another session's", async () => {
    receiver.onGet = async (taskId) => rawTask({ taskId, pollInterval: 1000 });
    tracker.sessionEnded({ final: false });
    session = undefined;
    tracker.track('pasted', { origin: 'manual' });
    await vi.advanceTimersByTimeAsync(0);
    session = 'NEW';
    tracker.sessionReady('A');
    const asked = receiver.count('tasks/get', 'pasted');
    await vi.advanceTimersByTimeAsync(1000);
    expect(task('pasted').sessionId).toBe('NEW');
    expect(task('pasted').otherSession).toBeUndefined();
    // It was never another session's: nothing on its timeline says it moved between sessions.
    expect(task('pasted').entries.filter((e) => e.kind === 'session')).toEqual([]);
    expect(receiver.count('tasks/get', 'pasted')).toBeGreaterThan(asked);
  });

  it('a sessionless receiver: restored live tasks are simply polled again', async () => {
    session = undefined;
    receiver.onGet = async (taskId) => rawTask({ taskId, pollInterval: 1000 });
    tracker.restore([restored('t', undefined)]);
    tracker.sessionReady(undefined);
    await vi.advanceTimersByTimeAsync(1000);
    expect(receiver.count('tasks/get', 't')).toBe(1);
    expect(task('t').otherSession).toBeUndefined();
  });

  it("Clear forgets ended tasks and keeps live ones, another tab's too (that tab still runs them)", async () => {
    receiver.onGet = async (taskId) => rawTask({ taskId, pollInterval: 1000 });
    tracker.track('live', { origin: 'created', initial: { value: snapshot('live'), warnings: [] } });
    tracker.restore([restored('done', 'A', 'completed'), restored('other', 'B')]);
    tracker.sessionReady(undefined);
    expect(tracker.forgetEnded()).toEqual(['done']);
    expect(tracker.store.getState().order).toEqual(['live', 'other']);
    expect(tracker.isTracked('done')).toBe(false);
  });

  it("following another tab's task the receiver does not know here says so without claiming that session ended", async () => {
    receiver.onGet = async () => {
      throw rpcError(-32602, 'Task not found');
    };
    tracker.restore([restored('other', 'B')]);
    tracker.sessionReady(undefined);
    tracker.follow('other');
    await vi.advanceTimersByTimeAsync(0);
    expect(task('other').lifecycle).toBe('session-ended');
    expect(task('other').otherSession).toBe(true);
    expect(task('other').sessionEndedAt).toBeUndefined();
  });

  it('a task given up as "session ended" is live again when the receiver lists it in the new session, and its result is fetched once it completes', async () => {
    receiver.onGet = async (taskId) => rawTask({ taskId, status: 'completed', pollInterval: 1000 });
    receiver.onResult = async () => ({ content: [{ type: 'text', text: 'done' }] });
    tracker.track('t1', { origin: 'created', initial: { value: snapshot('t1'), warnings: [] } });
    tracker.sessionEnded({ final: true });
    expect(task('t1').lifecycle).toBe('session-ended');
    session = 'NEW';
    receiver.onList = async () => [rawTask({ taskId: 't1', status: 'completed' })];
    await tracker.syncList();
    await vi.advanceTimersByTimeAsync(0);
    expect(task('t1').lifecycle).toBe('terminal');
    expect(task('t1').sessionId).toBe('NEW');
    expect(receiver.count('tasks/result', 't1')).toBe(1);
  });

  it('a task waiting for input asks again after a reload: its tasks/result is opened in the resumed session', async () => {
    receiver.onGet = async (taskId) => rawTask({ taskId, status: 'input_required', pollInterval: 1000 });
    receiver.onResult = () => new Promise(() => undefined);
    tracker.restore([{ ...restored('t', 'A'), snapshot: snapshot('t', 'input_required') }]);
    tracker.store.setState((state) => {
      state.tasks.set('t', { ...task('t'), status: 'input_required' });
      return { version: state.version + 1 };
    });
    tracker.sessionReady(undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(receiver.count('tasks/result', 't')).toBe(1);
    expect(task('t').result.state).toBe('open-for-input');
  });
});
