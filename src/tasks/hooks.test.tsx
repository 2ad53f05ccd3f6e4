// @vitest-environment jsdom
import { Profiler, act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TaskSnapshot } from '../mcp';
import { reactRoot } from '../../test/helpers/react-root';
import { useTaskResult, useTaskSnapshot } from './hooks';
import { tasksStore } from './tasks-store';

const view = reactRoot();
beforeEach(() => tasksStore.getState().reset(1));

const snapshot = (taskId: string, over: Partial<TaskSnapshot> = {}): [string, TaskSnapshot] => [
  taskId,
  { taskId, status: 'working', shape: 'flat', ttl: 60_000, ...over },
];

function Shown({ taskId }: { taskId: string }) {
  const seen = useTaskSnapshot(taskId);
  const result = useTaskResult(taskId);
  return (
    <span data-task-id={taskId}>
      {seen?.status ?? 'none'} {result ? 'result' : ''}
    </span>
  );
}

describe('a task’s snapshot and result on the page', () => {
  it('re-render only what reads that task, and only when its value changed', () => {
    act(() => tasksStore.getState().apply({ snapshots: [snapshot('A'), snapshot('B')] }));
    const renders = { A: 0, B: 0 };
    act(() =>
      view.root.render(
        (['A', 'B'] as const).map((id) => (
          <Profiler key={id} id={id} onRender={() => renders[id]++}>
            <Shown taskId={id} />
          </Profiler>
        )),
      ),
    );
    const text = (id: string) => view.container.querySelector(`[data-task-id="${id}"]`)?.textContent;
    const mounted = { ...renders };

    // A poll of B that changed its status, and one of A that brought the same answer again.
    act(() =>
      tasksStore.getState().apply({ snapshots: [snapshot('A'), snapshot('B', { status: 'completed' })] }),
    );
    expect(renders.A).toBe(mounted.A);
    expect(renders.B).toBe(mounted.B + 1);
    expect(text('B')).toContain('completed');

    act(() =>
      tasksStore.getState().apply({
        results: [['B', { value: { result: {}, isError: false, shape: 'plain' }, warnings: [] }]],
      }),
    );
    expect(renders.A).toBe(mounted.A);
    expect(text('B')).toContain('result');

    // B leaves the page's view: its snapshot and result go with its record.
    act(() => tasksStore.getState().apply({ tasks: { added: [], changes: [], removed: ['B'] } }));
    expect(renders.A).toBe(mounted.A);
    expect(text('B')?.trim()).toBe('none');
  });
});
