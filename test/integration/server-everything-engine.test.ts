import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import type { ConnectReply } from '../../src/engine/messages';
import { HistoryDb } from '../../src/engine/history';
import { startEverything } from '../helpers/receivers';
import { engineOverChannel } from '../helpers/engine-channel';
import { waitFor } from '../helpers/wait';

/**
 * @modelcontextprotocol/server-everything through the engine's message boundary, as the page reaches it (the SDK
 * session alone is server-everything.test.ts's; questions and sampling, input-required.test.ts's).
 *
 * A reload mid-task, at the engine's boundary: the page's engine goes
 * (its session left open on the receiver, as a closed tab leaves it) and a new one, with the same history, takes
 * the session up by id. The reload itself is the browser's (test/e2e/live.spec.ts); the card's "Session
 * resumed" is ServerCard.test.tsx's.
 */
const settings = { paused: false, minPollIntervalMs: 0 };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('server-everything through the engine', () => {
  it('connects with what the receiver card shows: its title, tasks for tools/call, which tool needs a task', async () => {
    const everything = await startEverything();
    cleanups.push(() => everything.close());
    const e = engineOverChannel({ history: async () => null });
    cleanups.push(() => e.close());
    const reply = await e.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: everything.url,
      headers: {},
      settings,
    });
    if (!reply.ok) throw new Error('connect failed');
    expect(reply.server.title).toBe('Everything Reference Server');
    expect(reply.support).toMatchObject({ list: true, cancel: true, toolCall: true });
    const { tools } = await e.bridge.request({ type: 'listTools' });
    const support = Object.fromEntries(tools.map((t) => [t.name, t.taskSupport]));
    expect(support).toMatchObject({ 'simulate-research-query': 'required', echo: 'forbidden' });
  });

  it('the task waiting for its question stays live in the same session, keeps its history, and the answer completes it', async () => {
    const everything = await startEverything();
    cleanups.push(() => everything.close());
    const indexedDB = new IDBFactory();
    const engine = () => {
      const e = engineOverChannel({ history: () => HistoryDb.open({ indexedDB }) });
      cleanups.push(() => e.close());
      return e;
    };

    const before = engine();
    const first = (await before.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: everything.url,
      headers: {},
      settings,
    })) as Extract<ConnectReply, { ok: true }>;
    expect(first.ok).toBe(true);
    expect(first.sessionId).toBeTruthy();
    const { tools } = await before.bridge.request({ type: 'listTools' });
    const research = tools.find((t) => t.name === 'simulate-research-query') as ToolInfo;
    const run = await before.bridge.request({
      type: 'run',
      tool: research,
      args: { topic: 'reloads', ambiguous: true },
    });
    if (!run.ok || run.taskId === undefined) throw new Error('no task');
    const taskId = run.taskId;
    // The ambiguous query waits for the person's answer: mid-task for as long as the test needs it.
    await waitFor(() => before.batches.some((b) => b.inbox.some((i) => i.kind === 'asked')), 20_000);
    const pollsBefore = () => before.tasks.getState().tasks.get(taskId)?.pollCount ?? 0;
    await waitFor(() => pollsBefore() >= 1, 10_000);
    const seen = pollsBefore();
    const firstSeenAt = before.tasks.getState().tasks.get(taskId)!.entries[0]!.at;

    // The reload: this engine connects nowhere useful (no DELETE: the receiver keeps the session).
    await before.bridge.request({
      type: 'connect',
      connectionId: 2,
      url: 'http://127.0.0.1:9/mcp',
      headers: {},
      settings,
    });

    const after = engine();
    const resumed = await after.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: everything.url,
      headers: {},
      settings,
      resume: {
        sessionId: first.sessionId!,
        protocolVersion: first.server.protocolVersion,
        server: first.server,
      },
    });
    expect(resumed.ok && resumed.resumed).toBe(true);
    expect(resumed.ok && resumed.sessionId).toBe(first.sessionId);

    // The task is back with what was seen before, still polled in the same session.
    await waitFor(() => (after.tasks.getState().tasks.get(taskId)?.pollCount ?? 0) > seen, 10_000);
    const task = after.tasks.getState().tasks.get(taskId)!;
    expect(task.lifecycle).toBe('live');
    expect(task.status).toBe('input_required');
    expect(task.entries[0]?.at).toBe(firstSeenAt);

    // The question is still waiting, and answered it lets the task go on to its report.
    await waitFor(() => after.batches.some((b) => b.inbox.some((i) => i.kind === 'asked')), 10_000);
    const asked = after.batches.flatMap((b) => b.inbox).find((i) => i.kind === 'asked');
    if (asked?.kind !== 'asked') throw new Error('not asked');
    expect(asked.request.relatedTaskId).toBe(taskId);
    expect(JSON.stringify(asked.request.params)).toContain('could have multiple interpretations');
    await after.bridge.request({
      type: 'answer',
      key: asked.request.key,
      outcome: 'accept',
      reply: { result: { action: 'accept', content: { interpretation: 'historical' } } },
    });
    await waitFor(() => after.tasks.getState().tasks.get(taskId)?.result.state === 'fetched', 20_000);
    const result = after.batches.flatMap((b) => b.results).find(([id]) => id === taskId)?.[1];
    expect(JSON.stringify(result?.value.result)).toContain('Research Report: reloads (historical)');
    const ended = after.tasks.getState().tasks.get(taskId)!;
    expect(ended.status).toBe('completed');
    expect(ended.lifecycle).toBe('terminal');
  }, 60_000);
});
