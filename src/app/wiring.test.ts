// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EngineBridge } from '../bridge/engine-bridge';
import type { Batch } from '../engine/messages';
import type { TaskSummary } from '../engine/task-views';
import { useConnection } from '../state/connection-store';
import { tasksStore } from '../tasks/tasks-store';
import { newTrackedTask } from '../tracker/task-store';
import { wireEngine } from './wiring';

/** An engine that hands the page the batches a test gives it. */
function fakeEngine() {
  let listener: ((batches: Batch[]) => void) | undefined;
  const engine = {
    onBatch: (l: (batches: Batch[]) => void) => {
      listener = l;
      return () => (listener = undefined);
    },
    request: () => Promise.resolve(null),
  } as unknown as EngineBridge;
  const send = (batch: Partial<Batch> & { connectionId: number }) =>
    listener?.([
      {
        type: 'batch',
        snapshots: [],
        results: [],
        traffic: [],
        trafficDropped: 0,
        trafficEpoch: 0,
        inbox: [],
        ...batch,
      },
    ]);
  return { engine, send };
}

const summary: TaskSummary = { taskId: 'A', shown: 'working', live: true, start: 0, end: 1, segments: [] };

/** Everything a batch of connection `id` can leave in the tasks store, for task A. */
const fullBatch = (connectionId: number): Partial<Batch> & { connectionId: number } => {
  const { entries, ...task } = newTrackedTask({ taskId: 'A', connectionId, origin: 'list', firstSeenAt: 0 });
  return {
    connectionId,
    tasks: {
      added: ['A'],
      changes: [{ task, newEntries: entries }],
      meta: { clockOffsetMs: 250, clockSamples: 3, dialects: ['spec'], untrackedSeen: 7 },
    },
    snapshots: [['A', { taskId: 'A', status: 'working', shape: 'flat', ttl: 60_000 }]],
    results: [['A', { value: { result: {}, isError: false, shape: 'plain' }, warnings: [] }]],
    taskList: { all: false, filter: 'all', query: '', total: 1, start: 0, ids: ['A'], counts: { all: 1 } },
    overview: { sync: true, order: ['A'], changed: [summary] },
    listStatus: { loading: true, error: { kind: 'other', message: 'listing failed' } },
    polling: {
      liveTasks: 1,
      demandPerSecond: 1,
      slots: 4,
      inFlight: 0,
      queuedPolls: 0,
      queuedResults: 0,
      pollsPerSecond: 1,
      queueWaitMedianMs: 0,
    },
  };
};

let stop: () => void = () => {};
beforeEach(() => {
  useConnection.setState({ id: 1 });
  tasksStore.getState().reset(0);
});
afterEach(() => stop());

describe('the page tasks store', () => {
  it('starts afresh at the first batch of a new connection: none of the previous one’s tasks, snapshots, results, list, overview, list status or health stays', () => {
    const { engine, send } = fakeEngine();
    stop = wireEngine(engine);
    send(fullBatch(1));
    const held = tasksStore.getState();
    expect(held.tasks.has('A')).toBe(true);
    expect(held.snapshots.get('A')?.ttl).toBe(60_000);
    expect(held.results.has('A')).toBe(true);
    expect(held.list?.ids).toEqual(['A']);
    expect(held.overview.summaries.has('A')).toBe(true);
    expect(held.listStatus.loading).toBe(true);
    expect(held.health?.liveTasks).toBe(1);

    useConnection.setState({ id: 2 });
    send({ connectionId: 2 });

    const fresh = tasksStore.getState();
    expect(fresh.connectionId).toBe(2);
    expect(fresh.tasks.size).toBe(0);
    expect(fresh.order).toEqual([]);
    expect(fresh.snapshots.size).toBe(0);
    expect(fresh.results.size).toBe(0);
    expect(fresh.list).toBeUndefined();
    expect(fresh.overview).toEqual({ order: [], summaries: new Map() });
    expect(fresh.listStatus).toEqual({ loading: false });
    expect(fresh.health).toBeUndefined();
    expect([fresh.clockOffsetMs, fresh.clockSamples, fresh.dialects, fresh.untrackedSeen]).toEqual([
      0,
      0,
      [],
      0,
    ]);
  });

  it('after Disconnect, keeps taking the closed connection’s tasks and nothing of an older one', () => {
    const { engine, send } = fakeEngine();
    stop = wireEngine(engine);
    send(fullBatch(1));
    useConnection.setState({ id: 2 });
    const late = fullBatch(1);
    late.snapshots = [['A', { taskId: 'A', status: 'completed', shape: 'flat' }]];
    send(late);
    expect(tasksStore.getState().snapshots.get('A')?.status).toBe('completed');
    send({ ...fullBatch(0), connectionId: 0 });
    send({ ...fullBatch(3), snapshots: [['A', { taskId: 'A', status: 'failed', shape: 'flat' }]] });
    expect(tasksStore.getState().snapshots.get('A')?.status).toBe('completed');
  });
});
