import { describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp';
import { stopAfterEach } from '../helpers/cleanups';
import { connectedEngine } from '../helpers/engine-channel';
import { startEverything } from '../helpers/receivers';
import { waitFor } from '../helpers/wait';

/**
 * The page's check given arguments (as `taskscope check --args`), against server-everything, whose one task
 * tool needs a topic the check never makes up: with the person's arguments it starts a task, and that task
 * reaches the page marked as the check's, where the person's own run of the same tool is not.
 */
const later = stopAfterEach();
const TOOL = 'simulate-research-query';

describe('the check with arguments, on server-everything', () => {
  it('starts a task with the arguments given, marked as the check’s; the person’s run is not', async () => {
    const receiver = await startEverything();
    later(receiver.close);
    const { bridge, tasks } = await connectedEngine(receiver.url, later);
    const { tools } = await bridge.request({ type: 'listTools' });
    const research = tools.find((t) => t.name === TOOL) as ToolInfo;
    const mine = await bridge.request({ type: 'run', tool: research, args: { topic: 'mine' } });
    if (!mine.ok || mine.taskId === undefined) throw new Error('the person’s run started no task');

    const check = bridge.request({ type: 'checkReceiver', tool: TOOL, args: { topic: 'tides' } });
    const checks = () => [...tasks.getState().tasks.values()].filter((t) => t.startedBy === 'check');
    await waitFor(() => checks().length > 0, 15_000);
    // Enough seen: Stop ends the check (and cancels the task it started).
    await bridge.request({ type: 'stopCheck' });
    const reply = await check;
    if (!reply.ok) throw new Error(reply.reason);

    expect(checks()[0]).toMatchObject({ tool: TOOL, origin: 'created', call: { args: { topic: 'tides' } } });
    expect(tasks.getState().tasks.get(mine.taskId)).toMatchObject({ tool: TOOL, origin: 'created' });
    expect(tasks.getState().tasks.get(mine.taskId)?.startedBy).toBeUndefined();
  });
});
