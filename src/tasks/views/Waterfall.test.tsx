// @vitest-environment jsdom
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TaskSummary } from '../../engine/task-views';
import { useSelection } from '../../state/selection-store';
import { tasksStore } from '../tasks-store';
import { reactRoot } from '../../../test/helpers/react-root';
import { Waterfall } from './Waterfall';

const view = reactRoot();
beforeEach(() => {
  useSelection.setState({ selection: { kind: 'none' } });
  // jsdom lays nothing out: the list's scroll box is given a height, so the virtual list draws its rows.
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(400);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const now = Date.now();
const summaries: TaskSummary[] = [
  {
    taskId: 'task-failed',
    tool: 'flaky_job',
    shown: 'failed',
    live: false,
    start: now - 4000,
    end: now - 3000,
    segments: [
      { status: 'working', start: now - 4000, end: now - 3500 },
      { status: 'failed', start: now - 3500, end: now - 3000 },
    ],
  },
  {
    taskId: 'task-working',
    tool: 'slow_job',
    shown: 'working',
    live: true,
    start: now - 2000,
    end: now - 1000,
    segments: [{ status: 'working', start: now - 2000, end: now - 1000 }],
  },
];

describe('Waterfall', () => {
  it('fades the bar of a task whose session ended, and says it only was working', () => {
    const ended: TaskSummary = { ...summaries[1]!, taskId: 'task-ended', live: false, sessionEnded: true };
    act(() =>
      tasksStore.getState().apply({ overview: { sync: true, order: ['task-ended'], changed: [ended] } }),
    );
    act(() => view.root.render(<Waterfall />));
    const bar = view.container.querySelector<HTMLButtonElement>('[data-task-id="task-ended"]')!;
    expect(bar.getAttribute('aria-label')).toBe('Task task-ended, session ended · was working');
    expect(bar.firstElementChild?.className).toContain('opacity-40');
  });

  it('draws each task as a bar coloured by status, and a bar opens its task', () => {
    act(() =>
      tasksStore
        .getState()
        .apply({ overview: { sync: true, order: summaries.map((s) => s.taskId), changed: summaries } }),
    );
    act(() => view.root.render(<Waterfall />));
    const waterfall = view.container.querySelector('[data-testid="waterfall"]')!;
    expect(waterfall.textContent).toContain('Overview: 2 tasks');
    const bar = (id: string) =>
      waterfall.querySelector<HTMLButtonElement>(`[data-testid="waterfall-bar"][data-task-id="${id}"]`)!;
    expect(bar('task-failed').dataset.status).toBe('failed');
    expect(bar('task-working').dataset.status).toBe('working');
    // The bar's segments carry the status colours the badges use, in the order the task lived them.
    expect([...bar('task-failed').children].map((s) => s.className.match(/bg-st-\w+/)?.[0])).toEqual([
      'bg-st-working',
      'bg-st-failed',
    ]);
    expect(bar('task-working').querySelectorAll('.bg-st-working')).toHaveLength(1);
    act(() => bar('task-failed').click());
    expect(useSelection.getState().selection).toEqual({ kind: 'task', taskId: 'task-failed' });
  });

  it('once no task is live, spans the first start to the last end (ended tasks fill the width), labelled', () => {
    const ended: TaskSummary[] = [
      {
        taskId: 'early',
        tool: 'slow_job',
        shown: 'completed',
        live: false,
        start: now - 64_000,
        end: now - 62_000,
        segments: [
          { status: 'working', start: now - 64_000, end: now - 63_000 },
          { status: 'completed', start: now - 63_000, end: now - 62_000 },
        ],
      },
      {
        taskId: 'late',
        tool: 'slow_job',
        shown: 'completed',
        live: false,
        start: now - 62_000,
        end: now - 60_000,
        segments: [{ status: 'completed', start: now - 62_000, end: now - 60_000 }],
      },
    ];
    act(() =>
      tasksStore
        .getState()
        .apply({ overview: { sync: true, order: ended.map((s) => s.taskId), changed: ended } }),
    );
    act(() => view.root.render(<Waterfall />));
    const last = [...view.container.querySelectorAll<HTMLElement>('[data-task-id="late"] span')].at(-1)!;
    expect(parseFloat(last.style.left) + parseFloat(last.style.width)).toBeCloseTo(100, 5);
    const ticks = [...view.container.querySelectorAll('[data-testid="waterfall-tick"]')].map(
      (t) => t.textContent,
    );
    expect(ticks[0]).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(ticks.slice(1)).toEqual(['+1 s', '+2 s', '+3 s', '+4 s']);
  });
});
