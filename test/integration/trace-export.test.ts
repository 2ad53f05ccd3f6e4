import { afterEach, describe, expect, it } from 'vitest';
import type { Normalised, TaskResultSnapshot, TaskSnapshot, ToolInfo } from '../../src/mcp';
import type { Health } from '../../src/engine/messages';
import { parseTraceText } from '../../src/engine/trace/schema';
import { buildTrace, type TraceSources } from '../../src/engine/trace/build-trace';
import { buildHar } from '../../src/trace-files/har';
import { startDemoReceiver, type RunningReceiver } from '../helpers/receivers';
import { engineOverChannel } from '../helpers/engine-channel';
import { waitFor } from '../helpers/wait';
import { harValidator } from '../helpers/har-validator';

const settings = { paused: false, minPollIntervalMs: 0 };
let receiver: RunningReceiver | undefined;
let engine: ReturnType<typeof engineOverChannel> | undefined;
afterEach(async () => {
  await engine?.close();
  await receiver?.close();
  engine = receiver = undefined;
});

/** What a page would hold after these batches: the same data export-sources.ts reads from the page's stores. */
function sourcesFrom(
  e: ReturnType<typeof engineOverChannel>,
  connect: { url: string; headers: Record<string, string> },
  tools: ToolInfo[],
): TraceSources {
  const snapshots = new Map<string, TaskSnapshot>();
  const results = new Map<string, Normalised<TaskResultSnapshot>>();
  for (const batch of e.batches) {
    for (const [id, snapshot] of batch.snapshots) snapshots.set(id, snapshot);
    for (const [id, result] of batch.results) results.set(id, result);
  }
  const health = e.health() as Health;
  const { tasks, order } = e.tasks.getState();
  return {
    receiver: {
      ...connect,
      era: health.era,
      protocolVersion: health.protocolVersion,
      server: health.server,
      support: health.support,
      sessionId: health.sessionId,
    },
    tools,
    tasks: order.map((id) => tasks.get(id)!),
    snapshot: (id) => snapshots.get(id),
    result: (id) => results.get(id),
    inbox: e.batches.flatMap((b) => b.inbox),
    traffic: e.batches.flatMap((b) => b.traffic),
  };
}

describe('trace and HAR export from a real engine against the demo receiver', () => {
  it('round-trips through parseTrace, redacts secrets by default, and gives a valid HAR 1.2', async () => {
    receiver = await startDemoReceiver();
    engine = engineOverChannel();
    const e = engine;
    const connect = {
      url: `${receiver.url}?api_key=abc123&team=blue`,
      headers: { Authorization: 'Bearer sekrit-value', 'X-Team': 'blue' },
    };
    const connected = await e.bridge.request({ type: 'connect', connectionId: 1, ...connect, settings });
    expect(connected.ok).toBe(true);
    const { tools } = await e.bridge.request({ type: 'listTools' });
    const tool = (name: string) => tools.find((t) => t.name === name) as ToolInfo;

    const slow = await e.bridge.request({
      type: 'run',
      tool: tool('slow_job'),
      args: { durationMs: 400, steps: 2, pollIntervalMs: 100 },
    });
    const ask = await e.bridge.request({
      type: 'run',
      tool: tool('ask_user'),
      args: { question: 'Colour?' },
    });
    if (!slow.ok || slow.taskId === undefined || !ask.ok || ask.taskId === undefined)
      throw new Error('a run did not create a task');
    const asked = () =>
      e.batches
        .flatMap((b) => b.inbox)
        .find((i) => i.kind === 'asked' && i.request.relatedTaskId === ask.taskId);
    await waitFor(() => asked() !== undefined, 10_000);
    const question = asked()!;
    if (question.kind !== 'asked') throw new Error('unreachable');
    const field = Object.keys(
      (question.request.params.requestedSchema as { properties: Record<string, unknown> }).properties,
    )[0]!;
    await e.bridge.request({
      type: 'answer',
      key: question.request.key,
      outcome: 'accept',
      reply: { result: { action: 'accept', content: { [field]: 'teal' } } },
    });
    const fetched = (id: string) => e.tasks.getState().tasks.get(id)?.result.state === 'fetched';
    await waitFor(() => fetched(slow.taskId) && fetched(ask.taskId), 10_000);

    const sources = sourcesFrom(e, connect, tools);
    const trace = buildTrace(sources);
    const text = JSON.stringify(trace);
    expect(text).not.toContain('sekrit-value');
    expect(text).not.toContain('abc123');
    expect(trace.receiver.url).toContain('team=blue');
    expect(trace.redacted).toEqual(['?api_key', 'Authorization']);
    expect(trace.receiver.headers).toEqual({ Authorization: '[redacted]', 'X-Team': 'blue' });
    // The live session id stays out of the file; a pseudonym stands for it in every place it was.
    const liveSession = sources.receiver.sessionId!;
    expect(liveSession).toBeTruthy();
    expect(text).not.toContain(liveSession);
    expect(trace.receiver.sessionId).toBe('session-1');
    expect(JSON.stringify(buildHar(trace))).not.toContain(liveSession);

    const read = parseTraceText(text);
    if (!read.ok) throw new Error(read.errors.join('\n'));
    expect(read.warnings).toEqual([]);
    expect(read.trace).toEqual(JSON.parse(text));
    const summary = (t: typeof trace) =>
      t.tasks.map((task) => [task.taskId, task.tool, task.status, task.result?.value.result]);
    expect(summary(read.trace)).toEqual(summary(trace));
    expect(read.trace.tasks.map((t) => t.status)).toEqual(['completed', 'completed']);
    expect(JSON.stringify(read.trace.tasks[1]!.result)).toContain('teal');
    expect(read.trace.tasks[0]!.entries.length).toBeGreaterThan(2);
    expect(read.trace.inbox.map((i) => i.kind)).toEqual(['asked', 'settled']);
    expect(read.trace.tools.map((t) => t.name)).toContain('slow_job');
    expect(read.trace.receiver.server?.name).toBeTruthy();
    expect(read.trace.traffic.length).toBe(sources.traffic.length);

    const withSecrets = buildTrace(sources, { includeSecrets: true });
    expect(JSON.stringify(withSecrets)).toContain('sekrit-value');
    expect(withSecrets.receiver.sessionId).toBe(sources.receiver.sessionId);
    expect(withSecrets.redacted).toEqual([]);

    const har = buildHar(read.trace);
    const validate = harValidator();
    const valid = validate(har);
    expect(validate.errors ?? [], 'HAR 1.2 schema errors').toEqual([]);
    expect(valid).toBe(true);
    expect(har.log.version).toBe('1.2');
    const methods = har.log.entries.map((entry) => entry._jsonrpc?.method);
    expect(methods).toEqual(expect.arrayContaining(['initialize', 'tools/list', 'tools/call', 'tasks/get']));
    for (const entry of har.log.entries) {
      expect(entry.request.method).toBe('POST');
      expect(entry.request.url.startsWith(receiver.url)).toBe(true);
      expect(JSON.stringify(entry.request.headers)).not.toContain('sekrit-value');
      expect(JSON.parse(entry.request.postData!.text)).toMatchObject({ jsonrpc: '2.0' });
      expect(entry.time).toBeGreaterThanOrEqual(0);
    }
    // Every answered request of ours is one exchange.
    const answered = read.trace.traffic.filter((t) => t.direction === 'in' && t.requestSeq !== undefined);
    expect(har.log.entries.length).toBeGreaterThanOrEqual(answered.length);
    const poll = har.log.entries.find((entry) => entry._jsonrpc?.method === 'tasks/get')!;
    expect(poll.response.status).toBe(200);
    expect(JSON.parse(poll.response.content.text!)).toMatchObject({ jsonrpc: '2.0' });
  });

  it('the HAR schema check can fail: a HAR missing its timings is refused', () => {
    const validate = harValidator();
    const bad = {
      log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [{ startedDateTime: 'now' }] },
    };
    expect(validate(bad)).toBe(false);
  });
});
