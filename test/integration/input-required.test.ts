import { afterEach, describe, expect, it } from 'vitest';
import {
  McpSession,
  TasksApi,
  type ServerRequest,
  type TaskResultSnapshot,
  type Normalised,
} from '../../src/mcp';
import { createQueryClient } from '../../src/tracker/queries';
import { queryKeys } from '../../src/tracker/queries';
import { TaskTracker } from '../../src/tracker/tracker';
import { startDemoReceiver, startEverything, type RunningReceiver } from '../helpers/receivers';
import { waitFor } from '../helpers/wait';

let receiver: RunningReceiver | undefined;
let session: McpSession | undefined;
let tracker: TaskTracker | undefined;
afterEach(async () => {
  tracker?.dispose();
  await session?.close();
  await receiver?.close();
  receiver = session = tracker = undefined;
});

/** Connects, answers every server request with `answer`, and tracks one task of `tool`. */
async function runWithAnswers(
  start: () => Promise<RunningReceiver>,
  tool: string,
  args: Record<string, unknown>,
  answer: (r: ServerRequest) => Record<string, unknown>,
) {
  receiver = await start();
  session = await McpSession.connect({ url: receiver.url });
  const asked: ServerRequest[] = [];
  session.setServerRequestHandler(async (request) => {
    asked.push(request);
    return answer(request);
  });
  const api = new TasksApi(session);
  const queryClient = createQueryClient();
  tracker = new TaskTracker({ api, queryClient, connectionId: 1 });
  const info = (await api.listTools()).tools.find((t) => t.name === tool)!;
  const created = await api.createTask(info, args);
  const taskId = created.value!.taskId;
  tracker.track(taskId, { origin: 'created', tool, initial: created });
  const record = () => tracker!.store.getState().tasks.get(taskId)!;
  await waitFor(() => record().result.state === 'fetched', 20_000);
  const result = queryClient.getQueryData<Normalised<TaskResultSnapshot>>(queryKeys.taskResult(1, taskId))!;
  return { taskId, asked, record: record(), result: result.value };
}

const statuses = (record: { entries: Array<{ kind: string; status?: string | null }> }) =>
  record.entries
    .flatMap((e) => (e.kind === 'observation' && e.status ? [e.status] : []))
    .filter((s, i, all) => s !== all[i - 1]);

describe('input_required: the receiver asks through tasks/result, a person answers', () => {
  it('demo ask_user: elicitation tied to its task, answered, then completed with the answer', async () => {
    const { taskId, asked, record, result } = await runWithAnswers(
      startDemoReceiver,
      'ask_user',
      { question: 'Favourite colour?' },
      () => ({
        action: 'accept',
        content: { answer: 'blue', confident: true },
      }),
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      method: 'elicitation/create',
      relatedTaskId: taskId,
      params: { message: 'Favourite colour?' },
    });
    expect(statuses(record)).toEqual(['working', 'input_required', 'working', 'completed']);
    expect(result.result).toMatchObject({ content: [{ type: 'text', text: 'You answered: blue' }] });
    // One tasks/result only: the one opened for input brought the result too.
    expect(record.entries.filter((e) => e.kind === 'result')).toHaveLength(1);
  });

  it('server-everything simulate-research-query (ambiguous): the chosen interpretation is in the report', async () => {
    const { asked, result } = await runWithAnswers(
      startEverything,
      'simulate-research-query',
      { topic: 'python', ambiguous: true },
      () => ({
        action: 'accept',
        content: { interpretation: 'snake' },
      }),
    );
    expect(asked[0]?.method).toBe('elicitation/create');
    const text = (result.result?.content as Array<{ text: string }>)[0]!.text;
    expect(text).toContain('# Research Report: python (snake)');
  });
});

describe('requests outside any task', () => {
  it('server-everything trigger-sampling-request: a plain call, a sampling request with no task, our reply in its result', async () => {
    receiver = await startEverything();
    session = await McpSession.connect({ url: receiver.url });
    const asked: ServerRequest[] = [];
    session.setServerRequestHandler(async (request) => {
      asked.push(request);
      return {
        role: 'assistant',
        content: { type: 'text', text: 'forty-two' },
        model: 'person',
        stopReason: 'endTurn',
      };
    });
    const api = new TasksApi(session);
    const tool = (await api.listTools()).tools.find((t) => t.name === 'trigger-sampling-request')!;
    const { value } = await api.callTool(tool, { prompt: 'the answer?' });
    expect(asked[0]).toMatchObject({ method: 'sampling/createMessage', relatedTaskId: undefined });
    expect(JSON.stringify(value.result)).toContain('forty-two');
  });
});
