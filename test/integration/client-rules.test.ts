import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { judgeClient } from '../../src/rules/client-judge';
import { demoFor, stopAfterEach } from '../helpers/cleanups';
import { recordingFetch } from '../helpers/recording-fetch';
import { startDemoReceiver2026 } from '../helpers/receiver-2026';
import { extTasksSession } from '../helpers/ext-tasks-session';
import { badClient2025 } from '../helpers/bad-client';

const later = stopAfterEach();

/** The rules a correct client breaks none of; which were judged at all is asserted per test. */
const problems = (card: ReturnType<typeof judgeClient>) =>
  card.rules.filter((r) => r.verdict === 'fail' || r.verdict === 'warn').map((r) => `${r.id}: ${r.reason}`);

describe('the client rules on real clients', () => {
  it('the official SDK 1.32 client (callToolStream) breaks none on the demo receiver', async () => {
    const demo = await demoFor(later);
    const tap = recordingFetch();
    const client = new Client({ name: 'sdk-client', version: '1' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(demo.url), { fetch: tap.fetch }));
    later(() => client.close());
    await client.listTools();
    const stream = client.experimental.tasks.callToolStream({
      name: 'slow_job',
      arguments: { durationMs: 1200, steps: 2, pollIntervalMs: 300 },
    });
    let outcome: string | undefined;
    for await (const message of stream)
      if (message.type === 'result' || message.type === 'error') outcome = message.type;
    expect(outcome).toBe('result');
    const card = judgeClient(tap.messages);
    expect(card.era).toBe('2025-11-25');
    expect(problems(card)).toEqual([]);
    const judged = Object.fromEntries(card.rules.map((r) => [r.id, r.verdict]));
    expect(judged).toMatchObject({
      'client-poll-cadence': 'pass',
      'client-stops-at-terminal': 'pass',
      'client-result-fetched': 'pass',
      'client-capability-respected': 'pass',
      'client-tool-task-support': 'pass',
    });
  });

  it('a client that gets tasks wrong breaks exactly those rules, each with its first offence', async () => {
    const demo = await demoFor(later);
    const tap = recordingFetch();
    const { taskId, terminalPolls } = await badClient2025(demo.url, tap.fetch);
    expect(terminalPolls).toBeGreaterThan(0);
    const card = judgeClient(tap.messages);
    const broken = Object.fromEntries(
      card.rules.filter((r) => r.verdict === 'fail' || r.verdict === 'warn').map((r) => [r.id, r.verdict]),
    );
    expect(broken).toEqual({
      'client-poll-cadence': 'warn',
      'client-stops-at-terminal': 'warn',
      'client-discards-unknown-task': 'fail',
      'client-result-fetched': 'warn',
      'client-result-promptly': 'warn',
    });
    for (const r of card.rules.filter((r) => r.id in broken)) expect(r.firstOffence?.taskId).toBe(taskId);
  });

  it('the SDK 2.x client with ext-tasks breaks none on the 2026-07-28 demo', async () => {
    const receiver = await startDemoReceiver2026();
    later(receiver.close);
    const tap = recordingFetch();
    const session = await extTasksSession(receiver.url, 'demo', tap.fetch);
    later(session.close);
    const slow = await session.tasks.callTool('slow_job', { durationMs: 900, steps: 2, pollIntervalMs: 300 });
    expect((await slow.settle()).outcome.status).toBe('completed');
    const ask = await session.tasks.callTool('ask_user', { question: 'Colour?' });
    expect((await ask.settle()).outcome.status).toBe('completed');
    const card = judgeClient(tap.messages);
    expect(card.era).toBe('2026-07-28');
    expect(problems(card)).toEqual([]);
    const judged = Object.fromEntries(card.rules.map((r) => [r.id, r.verdict]));
    expect(judged).toMatchObject({
      'client-poll-cadence': 'pass',
      'client-mcp-name': 'pass',
      'client-mcp-method': 'pass',
      'client-extension-declared': 'pass',
    });
  });
});
