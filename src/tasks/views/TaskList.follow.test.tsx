// @vitest-environment jsdom
import { act } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../tracker/queries';
import { useConnection } from '../../state/connection-store';
import { PASSIVE_OBSERVING, useObserve } from '../../state/observe-store';
import { reactRoot } from '../../../test/helpers/react-root';
import { TaskList } from './TaskList';

/** Each follow waits for the test to settle it, as a follow waits for the engine. */
const pending: Array<{ id: string; settle: (tracked: boolean) => void }> = [];
vi.mock('../actions', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../actions')>()),
  trackTaskId: (id: string) =>
    new Promise<boolean>((settle) => {
      pending.push({ id, settle });
    }),
}));

const view = reactRoot();
beforeEach(() => {
  pending.length = 0;
  useConnection.setState({
    id: 1,
    status: 'connected',
    support: { list: true, cancel: true, toolCall: true },
  });
});

describe('following a task id', () => {
  it('empties the field once the id is followed, but keeps an id typed while the last one was on its way', async () => {
    act(() =>
      view.root.render(
        <QueryClientProvider client={createQueryClient()}>
          <TaskList />
        </QueryClientProvider>,
      ),
    );
    const field = view.container.querySelector<HTMLInputElement>('input[aria-label="Task id to follow"]')!;
    const type = (text: string) =>
      act(() => {
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(field, text);
        field.dispatchEvent(new Event('input', { bubbles: true }));
      });
    const submit = () => act(() => field.form!.requestSubmit());

    type('task-one');
    submit();
    type('task-two');
    await act(async () => pending[0]!.settle(true));
    expect(field.value).toBe('task-two');
    submit();
    expect(pending.map((p) => p.id)).toEqual(['task-one', 'task-two']);
    await act(async () => pending[1]!.settle(true));
    expect(field.value).toBe('');
  });
});

describe('following a task id while nothing can be sent', () => {
  it('is off with the reason while a client session is observed', () => {
    useObserve.setState({ connectionId: 1, source: 'demo' });
    act(() =>
      view.root.render(
        <QueryClientProvider client={createQueryClient()}>
          <TaskList />
        </QueryClientProvider>,
      ),
    );
    const field = view.container.querySelector<HTMLInputElement>('input[aria-label="Task id to follow"]')!;
    expect(field.disabled).toBe(true);
    expect(field.title).toBe(PASSIVE_OBSERVING);
    useObserve.setState({ connectionId: undefined, source: undefined });
  });
});
