import { describe, expect, it } from 'vitest';
import { TasksApi } from './tasks-api';
import type { SessionLike } from './session-holder';
import type { ToolInfo } from './types';

const tool: ToolInfo = { name: 'job', inputSchema: { type: 'object' }, taskSupport: 'required' };

/** A session that answers every tools/call with a new task and keeps the progress tokens it was sent. */
function recordingSession(tokens: string[]): SessionLike {
  let n = 0;
  return {
    describeServer: () => ({
      name: 'r',
      version: '1',
      capabilities: { tasks: { requests: { tools: { call: {} } } } },
    }),
    request: async (_method: string, params?: Record<string, unknown>) => {
      const meta = (params?._meta ?? {}) as { progressToken?: string };
      if (meta.progressToken) tokens.push(meta.progressToken);
      return {
        task: { taskId: `t${++n}`, status: 'working', createdAt: new Date().toISOString(), ttl: 1000 },
      };
    },
    onNotification: () => () => undefined,
    askPerson: () => () => undefined,
  } as unknown as SessionLike;
}

describe('progress tokens', () => {
  it('never repeat across sessions of the same receiver (a reload, another tab), nor within one', async () => {
    const tokens: string[] = [];
    // Each TasksApi stands for one page load: the counter starts again, the tokens must not.
    for (let page = 0; page < 3; page++) {
      const api = new TasksApi(recordingSession(tokens));
      for (let call = 0; call < 3; call++) await api.createTask(tool, {});
    }
    expect(tokens).toHaveLength(9);
    expect(new Set(tokens).size).toBe(9);
    for (const token of tokens) expect(token).toMatch(/^taskscope-progress-[0-9a-f]{16}-\d+$/);
  });
});
