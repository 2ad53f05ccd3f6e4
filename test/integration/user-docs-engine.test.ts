import { describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import { startUserDocsReceiver } from '../helpers/user-docs-receiver';
import { stopAfterEach } from '../helpers/cleanups';
import { waitFor } from '../helpers/wait';
import { engineOverChannel } from '../helpers/engine-channel';

/**
 * A receiver in the user documents' dialect, through the engine's message boundary as the page drives it:
 * connect, run its tool as a task, get the envelope's result, and the dialect named for the receiver card
 * (ServerCard.test.tsx holds how it is drawn). tracker-user-docs.test.ts holds the tracker's rules there.
 */
const later = stopAfterEach();

describe('the engine against the user documents’ dialect', () => {
  it('the task runs, the envelope result comes, the dialect is named, and no rule of the receiver is broken', async () => {
    const receiver = await startUserDocsReceiver({ cors: true });
    later(receiver.close);
    const e = engineOverChannel({ history: async () => null });
    later(e.close);
    const connected = await e.bridge.request({
      type: 'connect',
      connectionId: 1,
      url: receiver.url,
      headers: {},
      settings: { paused: false, minPollIntervalMs: 0 },
    });
    if (!connected.ok) throw new Error('the receiver refused to connect');
    expect(connected.server.name).toBe('user-docs-receiver');
    const { tools } = await e.bridge.request({ type: 'listTools' });
    const run = await e.bridge.request({
      type: 'run',
      tool: tools.find((t) => t.name === 'job') as ToolInfo,
      args: {},
    });
    if (!run.ok || run.taskId === undefined) throw new Error('the job made no task');
    const id = run.taskId;
    await waitFor(() => e.tasks.getState().tasks.get(id)?.result.state === 'fetched', 15_000);
    const result = e.batches.flatMap((b) => b.results).find(([t]) => t === id)?.[1];
    expect(result?.value.shape).toBe('envelope');
    expect(JSON.stringify(result?.value.result)).toContain('all done');
    expect(e.tasks.getState().dialects).toContain('user-docs');
    // Never asked for the result before the task ended, never polled faster than asked.
    expect(receiver.stats.resultBeforeTerminal).toBe(0);
    expect(receiver.stats.rateLimited).toBe(0);
  }, 30_000);
});
