import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpSession, TasksApi, classifyError } from '../../src/mcp';
import { startEverything, type RunningReceiver } from '../helpers/receivers';
import { matchesTool } from '../../src/tools/tool-search';
import { isLongText } from '../../src/ui/fold';

let receiver: RunningReceiver;
beforeAll(async () => {
  receiver = await startEverything();
});
afterAll(async () => {
  await receiver.close();
});

describe('@modelcontextprotocol/server-everything over Streamable HTTP', () => {
  it('lists 15 tools the search finds by name, title or description, and long markdown instructions, folded on the card', async () => {
    const session = await McpSession.connect({ url: receiver.url });
    try {
      const { instructions } = session.describeServer();
      expect(instructions).toMatch(/^# Everything Server – Server Instructions$/m);
      expect(instructions).toMatch(/^## Cross-Feature Relationships$/m);
      expect(instructions).toMatch(/Easter Egg/);
      expect(instructions).toContain('`');
      expect(isLongText(instructions ?? '')).toBe(true);
      const { tools } = await new TasksApi(session).listTools();
      expect(tools).toHaveLength(15);
      const found = (query: string) => tools.filter((t) => matchesTool(t, query)).map((t) => t.name);
      expect(found('echo')).toEqual(['echo']);
      // Only the title says "Print Environment Tool"; only the description says "progress updates".
      expect(found('print environment')).toEqual(['get-env']);
      expect(found('PROGRESS updates')).toEqual(['trigger-long-running-operation']);
      expect(found('no such tool anywhere')).toEqual([]);
    } finally {
      await session.close();
    }
  });

  it('runs simulate-research-query as a task: create → tasks/get until completed → tasks/result', async () => {
    const session = await McpSession.connect({ url: receiver.url });
    try {
      expect(session.describeServer()).toMatchObject({
        name: 'mcp-servers/everything',
        protocolVersion: '2025-11-25',
      });
      const api = new TasksApi(session);
      expect(api.support).toEqual({ list: true, cancel: true, toolCall: true });
      const { tools } = await api.listTools();
      const research = tools.find((t) => t.name === 'simulate-research-query');
      expect(research?.taskSupport).toBe('required');

      const created = await api.createTask(research!, { topic: 'tides' }, { ttl: 5000 });
      const first = created.value!;
      // server-everything answers 300000 whatever ttl is asked for.
      expect(first).toMatchObject({ status: 'working', ttl: 300_000, pollInterval: 1000 });

      let last = first;
      const messages = new Set<string>();
      while (last.status === 'working') {
        // The test is the client here: it waits the pollInterval asked for, as a client must.
        await new Promise((r) => setTimeout(r, last.pollInterval));
        const { value, warnings } = await api.getTask(first.taskId, last);
        expect(warnings).toEqual([]);
        last = value!;
        if (last.statusMessage) messages.add(last.statusMessage);
      }
      expect(last.status).toBe('completed');
      // Its four stages last a second each; which of them a 1 s poll lands in is the machine's business.
      expect(messages.size).toBeGreaterThan(0);
      for (const message of messages)
        expect([
          'Gathering sources...',
          'Analyzing content...',
          'Synthesizing findings...',
          'Generating report...',
        ]).toContain(message);

      const { value: result } = await api.getTaskResult(first.taskId);
      const text = (result.result?.content as Array<{ text: string }>)[0]!.text;
      expect(text).toContain('# Research Report: tides');

      const listed = await api.listTasks();
      expect(listed.tasks.map((t) => t.taskId)).toContain(first.taskId);
    } finally {
      await session.close();
    }
  }, 20_000);

  it('answers -32602 for a task it does not know, which classifies as unknown-task', async () => {
    const session = await McpSession.connect({ url: receiver.url });
    try {
      const api = new TasksApi(session);
      const error = await api.getTask('no-such-task').catch((e: unknown) => e);
      expect(classifyError(error, { method: 'tasks/get' })).toMatchObject({
        kind: 'unknown-task',
        code: -32602,
      });
    } finally {
      await session.close();
    }
  });
});
