import { describe, expect, it } from 'vitest';
import { stopAfterEach } from '../helpers/cleanups';
import type { Normalised, TaskResultSnapshot } from '../../src/mcp';
import type { Batch } from '../../src/engine/messages';
import { engineOverChannel } from '../helpers/engine-channel';
import { startRecorder } from '../helpers/record-trace';
import { waitFor } from '../helpers/wait';
import { setEngine } from '../../src/bridge/engine-bridge';
import { openTraceText } from '../../src/trace-files/open-trace';
import { useConnection } from '../../src/state/connection-store';
import { useInbox } from '../../src/inbox/inbox-store';
import { useReplay } from '../../src/state/replay-store';

const later = stopAfterEach();

function replayEngine() {
  const engine = engineOverChannel({ history: async () => null });
  later(() => engine.close());
  const results = new Map<string, Normalised<TaskResultSnapshot>>();
  const news: Array<NonNullable<Batch['replay']>> = [];
  engine.bridge.onBatch((batches) => {
    for (const batch of batches) {
      for (const [taskId, result] of batch.results) results.set(taskId, result);
      if (batch.replay) news.push(batch.replay);
    }
  });
  return { engine, results, news };
}

describe('replay through the engine', () => {
  it('a flow recorded from the demo receiver replays, with the receiver gone, to the same tasks, statuses and results', async () => {
    const rec = await startRecorder();
    await rec.run('slow_job', { durationMs: 900, steps: 3, pollIntervalMs: 200, label: 'replayed' });
    await rec.run('flaky_job', { failAfterMs: 400, reason: 'disk full' });
    await rec.allEnded(15_000);
    const trace = rec.trace();
    // Nothing is left to answer: a replay that asked anything would fail.
    await rec.close();

    const { engine, results, news } = replayEngine();
    const reply = await engine.bridge.request({
      type: 'replay',
      connectionId: 3,
      trace: JSON.stringify(trace),
      speed: 'instant',
    });
    expect(reply).toMatchObject({ ok: true, info: { receiverUrl: rec.url, tasks: 2 } });
    expect(engine.health()).toMatchObject({ status: 'connected', server: trace.receiver.server });
    await waitFor(() => news.at(-1)?.ended === true, 10_000);
    await waitFor(() => results.size === 2, 5_000);
    const state = engine.tasks.getState();
    expect(state.order).toEqual(trace.tasks.map((t) => t.taskId));
    for (const recorded of trace.tasks) {
      expect(state.tasks.get(recorded.taskId)?.status).toBe(recorded.status);
      expect(results.get(recorded.taskId)).toEqual(recorded.result);
    }
    const traffic = (engine.batches as Batch[]).flatMap((b) => b.traffic);
    expect(traffic.map((e) => e.seq)).toEqual(trace.traffic.map((e) => e.seq));

    // While it replays, nothing that would reach a receiver is done.
    const tool = trace.tools.find((t) => t.name === 'slow_job');
    if (!tool) throw new Error('no slow_job in the trace');
    const run = await engine.bridge.request({ type: 'run', tool, args: {} });
    expect(run).toMatchObject({ ok: false, error: { kind: 'unsupported' } });
    expect(await engine.bridge.request({ type: 'cancel', taskId: trace.tasks[0]!.taskId })).toMatchObject({
      kind: 'unsupported',
    });
    expect((await engine.bridge.request({ type: 'listTools' })).tools).toEqual(trace.tools);
  }, 40_000);

  it('refuses a malformed trace with its reasons and leaves the engine as it was', async () => {
    const { engine } = replayEngine();
    const notJson = await engine.bridge.request({ type: 'replay', connectionId: 1, trace: '{', speed: 1 });
    expect(notJson).toMatchObject({ ok: false, errors: [expect.stringMatching(/not JSON/)] });
    const wrong = await engine.bridge.request({
      type: 'replay',
      connectionId: 1,
      trace: { format: 'taskscope-trace', version: 1, tasks: [{ taskId: 5 }] },
      speed: 1,
    });
    expect(wrong.ok).toBe(false);
    const newer = await engine.bridge.request({
      type: 'replay',
      connectionId: 1,
      trace: { format: 'taskscope-trace', version: 99 },
      speed: 1,
    });
    expect(newer).toMatchObject({ ok: false, errors: [expect.stringMatching(/newer/)] });
    expect(engine.tasks.getState().order).toEqual([]);
  });

  it('the page leaves a live connection and what it shows alone until the engine accepts the trace', async () => {
    const rec = await startRecorder();
    await rec.run('slow_job', { durationMs: 300, steps: 1, pollIntervalMs: 100, label: 'kept' });
    await rec.allEnded(10_000);
    const trace = rec.trace();
    await rec.close();
    const { engine } = replayEngine();
    setEngine(engine.bridge);
    later(async () => {
      setEngine(null);
      useReplay.setState({ connectionId: undefined, info: undefined, errors: undefined, opening: false });
    });
    const live = { id: 4, url: 'http://127.0.0.1:9/mcp', status: 'connected' as const };
    useConnection.setState(live);
    const item = { id: 'live-question' } as unknown as ReturnType<typeof useInbox.getState>['items'][number];
    useInbox.setState({ items: [item] });

    // JSON, format and version are right; the schema is not: only the engine can tell.
    const bad = JSON.stringify({ ...trace, tasks: [{ taskId: 5 }] });
    expect(await openTraceText(bad, 'instant')).toBe(false);
    expect(useReplay.getState().errors?.length).toBeGreaterThan(0);
    expect(useReplay.getState().opening).toBe(false);
    expect(useReplay.getState().connectionId).toBeUndefined();
    expect(useConnection.getState()).toMatchObject(live);
    expect(useInbox.getState().items).toEqual([item]);

    expect(await openTraceText(JSON.stringify(trace), 'instant')).toBe(true);
    expect(useConnection.getState()).toMatchObject({ id: 5, url: rec.url });
    expect(useReplay.getState()).toMatchObject({ connectionId: 5, errors: undefined });
    expect(useInbox.getState().items).toEqual([]);
  }, 30_000);
});
