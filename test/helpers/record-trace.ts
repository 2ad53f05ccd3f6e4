import { buildTrace } from '../../src/engine/trace/build-trace';
import type { Trace } from '../../src/engine/trace/schema';
import type { Batch, Health, InboxEvent } from '../../src/engine/messages';
import type { Normalised, TaskResultSnapshot, TaskSnapshot, ToolInfo, TrafficEvent } from '../../src/mcp';
import { isTerminal } from '../../src/mcp';
import { engineOverChannel } from './engine-channel';
import { startDemoReceiver } from './receivers';

export interface Recorder {
  url: string;
  engine: ReturnType<typeof engineOverChannel>;
  tools: ToolInfo[];
  run: (tool: string, args: Record<string, unknown>, ttl?: number) => Promise<string>;
  /** Resolves with the first inbox request the receiver asks. */
  asked: () => Promise<Extract<InboxEvent, { kind: 'asked' }>['request']>;
  /** Resolves once every tracked task has ended (or the deadline passes). */
  allEnded: (timeoutMs: number) => Promise<void>;
  trace: () => Trace;
  close: () => Promise<void>;
}

/**
 * The engine (the same EngineHost the Worker runs) against the demo receiver on loopback, with what its batches
 * bring kept the way the page keeps them, so a trace can be built from it with the page's own export builder.
 */
export async function startRecorder(
  start: () => Promise<{ url: string; close: () => Promise<void> }> = startDemoReceiver,
): Promise<Recorder> {
  const demo = await start();
  const engine = engineOverChannel({ history: async () => null });
  const snapshots = new Map<string, TaskSnapshot>();
  const results = new Map<string, Normalised<TaskResultSnapshot>>();
  const traffic: TrafficEvent[] = [];
  const inbox: InboxEvent[] = [];
  let health: Health | undefined;
  const askedWaiters: Array<(request: Extract<InboxEvent, { kind: 'asked' }>['request']) => void> = [];
  engine.bridge.onBatch((batches: Batch[]) => {
    for (const batch of batches) {
      for (const [taskId, snapshot] of batch.snapshots) snapshots.set(taskId, snapshot);
      for (const [taskId, result] of batch.results) results.set(taskId, result);
      traffic.push(...batch.traffic);
      for (const event of batch.inbox) {
        inbox.push(event);
        if (event.kind === 'asked') askedWaiters.shift()?.(event.request);
      }
      if (batch.connection?.health?.status === 'connected') health = batch.connection.health;
    }
  });
  const reply = await engine.bridge.request({
    type: 'connect',
    connectionId: 1,
    url: demo.url,
    headers: {},
    settings: { paused: false, minPollIntervalMs: 0 },
    preserve: false,
  });
  if (!reply.ok) throw new Error(`could not connect to the demo receiver: ${JSON.stringify(reply)}`);
  const { tools } = await engine.bridge.request({ type: 'listTools' });
  return {
    url: demo.url,
    engine,
    tools,
    run: async (name, args, ttl) => {
      const tool = tools.find((t) => t.name === name);
      if (!tool) throw new Error(`no tool ${name}`);
      const answer = await engine.bridge.request({ type: 'run', tool, args, ttl });
      if (!answer.ok || !answer.taskId)
        throw new Error(`${name} did not start a task: ${JSON.stringify(answer)}`);
      return answer.taskId;
    },
    asked: () => new Promise((resolve) => askedWaiters.push(resolve)),
    allEnded: async (timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const tasks = [...engine.tasks.getState().tasks.values()];
        const done = tasks.every(
          (t) =>
            t.lifecycle !== 'live' &&
            (!['completed', 'failed'].includes(t.status ?? '') || t.result.state === 'fetched'),
        );
        if ((tasks.length > 0 && done) || Date.now() > deadline) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    trace: () => {
      const state = engine.tasks.getState();
      return buildTrace({
        receiver: {
          url: demo.url,
          headers: {},
          era: health?.era,
          protocolVersion: health?.protocolVersion,
          server: health?.server,
          support: health?.support,
        },
        tools,
        tasks: state.order.map((id) => state.tasks.get(id)).filter((t) => t !== undefined),
        snapshot: (taskId) => snapshots.get(taskId),
        result: (taskId) => results.get(taskId),
        inbox,
        traffic,
      });
    },
    close: async () => {
      await engine.close();
      await demo.close();
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A short, varied flow: a slow job with steps, a flaky one that fails, the variable-interval one, a question
 * answered through the inbox, a short-ttl task that the receiver purges, and a long job cancelled halfway.
 */
export async function recordDemoFlow(): Promise<Trace> {
  const rec = await startRecorder();
  try {
    const asked = rec.asked();
    await rec.run('slow_job', { durationMs: 5000, steps: 5, pollIntervalMs: 500, label: 'nightly report' });
    await sleep(200);
    await rec.run('flaky_job', { failAfterMs: 2500, reason: 'upstream dependency timed out' });
    await sleep(200);
    await rec.run('variable_poll_job', { fastMs: 250, slowMs: 1500, switchAfterMs: 2000, totalMs: 6000 });
    await sleep(200);
    await rec.run('ask_user', { question: 'Which colour should the report use?' });
    await sleep(200);
    await rec.run('short_ttl_job', {});
    const long = await rec.run('slow_job', {
      durationMs: 30_000,
      steps: 10,
      pollIntervalMs: 500,
      label: 'backfill',
    });
    const request = await asked;
    await sleep(1200);
    await rec.engine.bridge.request({
      type: 'answer',
      key: request.key,
      outcome: 'accept',
      reply: { result: { action: 'accept', content: { answer: 'teal', confident: true } } },
    });
    await sleep(1500);
    await rec.engine.bridge.request({ type: 'cancel', taskId: long });
    await rec.allEnded(20_000);
    // The short-ttl task is purged at its ttl (8 s after it was created): wait for the probe that finds out.
    const deadline = Date.now() + 12_000;
    while (
      Date.now() < deadline &&
      [...rec.engine.tasks.getState().tasks.values()].some(
        (t) => t.tool === 'short_ttl_job' && t.lifecycle !== 'purged',
      )
    )
      await sleep(100);
    await sleep(300);
    return rec.trace();
  } finally {
    await rec.close();
  }
}

/** Every task's final status and result, for comparing a replay with what was recorded. */
export function finalStates(trace: Trace) {
  return trace.tasks.map((t) => ({
    taskId: t.taskId,
    tool: t.tool,
    status: t.status,
    terminal: isTerminal(t.status),
    resultText: JSON.stringify(t.result?.value.result ?? null),
  }));
}
