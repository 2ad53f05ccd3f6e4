// @vitest-environment jsdom
import { act } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { beforeEach, describe, expect, it } from 'vitest';
import { reactRoot } from '../../../test/helpers/react-root';
import { useInbox } from '../../inbox/inbox-store';
import { useConnection } from '../../state/connection-store';
import { createQueryClient } from '../../tracker/queries';
import { applyTaskChanges } from '../../tracker/task-changes';
import { newTrackedTask } from '../../tracker/task-store';
import { tasksStore } from '../tasks-store';
import { TaskRow } from './TaskRow';

/** A question the receiver asked for task-1, as the engine hands it to the page. */
const question = {
  key: '1:7:1',
  connectionId: 1,
  requestId: 7,
  method: 'elicitation/create',
  params: { message: 'Which colour?' },
  relatedTaskId: 'task-1',
  receivedAt: Date.now(),
};

const view = reactRoot();
beforeEach(() => {
  useInbox.setState({ items: [] });
});
const $ = (selector: string) => view.container.querySelector<HTMLElement>(selector);

describe('a task waiting for a person', () => {
  it("the task's row says it needs you while its question waits, and no longer once answered", () => {
    useConnection.setState({ id: 1 });
    tasksStore.getState().reset(1);
    const { entries: _entries, ...task } = newTrackedTask({
      taskId: 'task-1',
      connectionId: 1,
      origin: 'created',
      firstSeenAt: Date.now(),
      status: 'input_required',
      tool: 'ask_user',
    });
    applyTaskChanges(tasksStore, { added: ['task-1'], changes: [{ task, newEntries: [] }] });
    act(() =>
      view.root.render(
        <QueryClientProvider client={createQueryClient()}>
          <TaskRow taskId="task-1" />
        </QueryClientProvider>,
      ),
    );
    const row = () => $('[data-task-id="task-1"]')?.textContent ?? '';
    expect(row()).not.toContain('needs you');
    act(() => useInbox.getState().apply([{ kind: 'asked', request: question }]));
    expect(row()).toContain('needs you');
    act(() =>
      useInbox
        .getState()
        .apply([{ kind: 'settled', key: question.key, state: 'answered', outcome: 'accept' }]),
    );
    expect(row()).not.toContain('needs you');
  });
});
