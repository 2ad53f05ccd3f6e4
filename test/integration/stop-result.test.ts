import { afterEach, expect, it } from 'vitest';
import { McpSession, TasksApi } from '../../src/mcp';
import { createQueryClient } from '../../src/tracker/queries';
import { TaskTracker } from '../../src/tracker/tracker';
import { startHostileReceiver, type HostileReceiver } from '../servers/hostile/receiver';
import { waitFor } from '../helpers/wait';

let hostile: HostileReceiver | undefined;
let session: McpSession | undefined;
let tracker: TaskTracker | undefined;
afterEach(async () => {
  tracker?.dispose();
  await session?.close();
  await hostile?.close();
  hostile = session = tracker = undefined;
});

it('a person can stop waiting for a tasks/result the receiver holds open: the call ends and its connection is freed', async () => {
  hostile = await startHostileReceiver();
  session = await McpSession.connect({ url: hostile.caseUrl('wide-elicitation') });
  session.setServerRequestHandler(() => new Promise(() => undefined)); // nobody answers: the call stays open
  tracker = new TaskTracker({
    api: new TasksApi(session),
    queryClient: createQueryClient(),
    connectionId: 1,
  });
  await tracker.syncList();
  const taskId = tracker.store.getState().order[0]!;
  const record = () => tracker!.store.getState().tasks.get(taskId)!;
  await waitFor(() => record().result.state === 'open-for-input', 5000);
  await waitFor(() => hostile!.counts('wide-elicitation').elicitationsSent === 1, 5000);
  const held = hostile.counts('wide-elicitation').open;
  expect(tracker.stopResult(taskId)).toBe(true);
  await waitFor(() => record().result.state === 'stopped', 5000);
  // The receiver sees the stream end: the SDK's cancel alone would have left the fetch open.
  await waitFor(() => hostile!.counts('wide-elicitation').open === held - 1, 5000);
  expect(hostile.counts('wide-elicitation').methods['notifications/cancelled']).toBe(1);
});
