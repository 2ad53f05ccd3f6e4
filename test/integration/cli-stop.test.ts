import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpSession, TasksApi } from '../../src/mcp';
import { makeStubDist } from '../helpers/stub-dist';
import { startCli, type RunningCli } from '../helpers/taskscope-cli';

let dist: { dir: string; remove: () => Promise<void> };
let cli: RunningCli | undefined;

beforeAll(async () => {
  dist = await makeStubDist();
});
afterAll(async () => {
  await dist?.remove();
});
afterEach(async () => {
  await cli?.stop('SIGKILL');
  cli = undefined;
});

describe('taskscope: stopping', () => {
  it('Ctrl-C ends the command while a demo task still works: the task does not keep it running', async () => {
    cli = await startCli(['--no-open', '--port', '0'], { env: { TASKSCOPE_DIST: dist.dir, PORT: '' } });
    const session = await McpSession.connect({ url: `${cli.url}/demo/mcp` });
    const api = new TasksApi(session);
    const { tools } = await api.listTools();
    const slowJob = tools.find((tool) => tool.name === 'slow_job')!;
    const { value: task } = await api.createTask(slowJob, { durationMs: 600_000, steps: 2 });
    expect(task?.status).toBe('working');
    // A task ten minutes from its end: the command exits on Ctrl-C long before, or the test times out.
    expect(await cli.stop('SIGINT')).toEqual({ code: 0, signal: null });
    cli = undefined;
    await session.close().catch(() => undefined);
  });
});
