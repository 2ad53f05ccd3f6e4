// @vitest-environment jsdom
import { act } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../tracker/queries';
import { newTrackedTask, type TimelineEntry, type TrackedTask } from '../../tracker/task-store';
import { applyTaskChanges } from '../../tracker/task-changes';
import { useConnection } from '../../state/connection-store';
import { useSelection } from '../../state/selection-store';
import { PASSIVE_OBSERVING, useObserve } from '../../state/observe-store';
import { useRunDrafts } from '../../tools/run-drafts-store';
import type { TaskSnapshot } from '../../mcp';
import { tasksStore } from '../tasks-store';
import { TaskDetail } from './TaskDetail';
import { TaskTime } from './TaskTime';
import { reactRoot } from '../../../test/helpers/react-root';
import { observation } from '../../../test/helpers/task-records';

/**
 * The task detail drawn from a record and a snapshot, as the engine's batches leave them on the page: the
 * headline, the call, the progress, the timeline's marks and steps, the observations and the row's time.
 */

const view = reactRoot();
const T0 = new Date(2026, 11, 7, 14, 30, 0, 0).getTime();

const obs = observation;

let queryClient = createQueryClient();

beforeEach(() => {
  queryClient = createQueryClient();
  useConnection.setState({
    id: 1,
    url: 'http://127.0.0.1:1/mcp',
    status: 'connected',
    support: { list: true, cancel: true, toolCall: true },
  });
  useSelection.setState({ selection: { kind: 'none' } });
  useRunDrafts.setState({ drafts: {} });
  tasksStore.getState().reset(1);
  // The observations are a virtual list: give the scroll box a height, so it draws its rows.
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(400);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

function show(
  fields: Partial<TrackedTask> & { entries: TimelineEntry[] },
  snapshot?: Partial<TaskSnapshot>,
  taskId = 'task-1',
) {
  const task = newTrackedTask({
    taskId,
    connectionId: 1,
    origin: 'created',
    firstSeenAt: fields.entries[0]?.at ?? T0,
    pollCount: fields.entries.filter((e) => e.kind === 'observation' && e.source === 'poll').length,
    ...fields,
  });
  const { entries, ...record } = task;
  applyTaskChanges(tasksStore, {
    added: [taskId],
    changes: [{ task: record, newEntries: entries }],
  });
  if (snapshot)
    tasksStore
      .getState()
      .apply({ snapshots: [[taskId, { taskId, status: task.status, shape: 'flat', ...snapshot }]] });
  act(() =>
    view.root.render(
      <QueryClientProvider client={queryClient}>
        <TaskDetail taskId={taskId} />
      </QueryClientProvider>,
    ),
  );
  return view.container;
}

const $ = (testId: string) => view.container.querySelector<HTMLElement>(`[data-testid="${testId}"]`);
const all = (selector: string) => [...view.container.querySelectorAll<HTMLElement>(selector)];
const obsRows = (source: string) =>
  all('[data-testid="observations"] tbody tr').filter(
    (tr) => tr.querySelector('[data-testid="obs-source"]')?.textContent === source,
  );

describe('the task detail, drawn from a record', () => {
  it('heads an ended task with its ending, the last statusMessage under it labelled', () => {
    show(
      {
        status: 'completed',
        lifecycle: 'terminal',
        entries: [
          obs(T0, 'working', { source: 'create', sentAt: T0 - 5, statusMessage: 'Step 1/2: head' }),
          obs(T0 + 600, 'completed', { statusMessage: 'Step 2/2: head' }),
        ],
      },
      { statusMessage: 'Step 2/2: head', createdAtMs: T0, lastUpdatedAtMs: T0 + 600 },
    );
    expect($('status-headline')?.textContent).toMatch(/^Completed/);
    expect($('status-message')?.textContent).toBe('Step 2/2: head');
    expect(view.container.textContent).toContain('last statusMessage:');
  });

  it('heads a cancelled task with "Cancelled" and says it has no result, not that one will come', () => {
    show(
      {
        status: 'cancelled',
        lifecycle: 'terminal',
        entries: [obs(T0, 'working', { source: 'create' }), obs(T0 + 900, 'cancelled', { source: 'cancel' })],
      },
      { createdAtMs: T0 },
    );
    expect($('status-headline')?.textContent).toMatch(/^Cancelled/);
    expect($('no-result')?.textContent).toBe('No result: a cancelled task has none to fetch.');
    expect(view.container.textContent).not.toContain('The result is fetched the moment');
    // An ended task offers no Cancel.
    expect(all('button').some((b) => b.textContent?.includes('Cancel task'))).toBe(false);
  });

  it('shows the call: tool, arguments and the ttl asked for; Run again fills that tool’s form with them', () => {
    show({
      status: 'completed',
      lifecycle: 'terminal',
      tool: 'slow_job',
      call: { tool: 'slow_job', args: { durationMs: 700, steps: 1, label: 'first run' }, ttl: 45_000 },
      entries: [obs(T0, 'completed', { source: 'create' })],
    });
    const call = $('task-call')!;
    expect(call.querySelector('[data-testid="call-tool"]')?.textContent).toBe('slow_job');
    expect(call.querySelector('[data-testid="call-ttl"]')?.textContent).toContain('45 s');
    const args = call.querySelector('[data-testid="call-args"]')?.textContent ?? '';
    expect(args).toContain('"label":"first run"');
    expect(args).toContain('"durationMs":700');

    const runAgain = [...call.querySelectorAll('button')].find((b) => b.textContent?.includes('Run again'))!;
    act(() => runAgain.click());
    expect(useSelection.getState().selection).toEqual({ kind: 'tool', name: 'slow_job' });
    expect(Object.values(useRunDrafts.getState().drafts)).toEqual([
      expect.objectContaining({
        ttl: '45000',
        call: { args: { durationMs: 700, steps: 1, label: 'first run' }, fromTaskId: 'task-1' },
      }),
    ]);
  });

  it("an observed client's task: its call shown, Run again and Cancel off with the reason (nothing is sent)", () => {
    useObserve.setState({ connectionId: 1, source: 'demo' });
    try {
      show({
        status: 'working',
        lifecycle: 'live',
        tool: 'slow_job',
        call: { tool: 'slow_job', args: { label: 'the client’s' } },
        entries: [obs(T0, 'working', { source: 'create' })],
      });
      const runAgain = all('button').find((b) => b.textContent?.includes('Run again')) as HTMLButtonElement;
      expect(runAgain.disabled).toBe(true);
      expect(runAgain.title).toBe(PASSIVE_OBSERVING);
      expect(all('button').some((b) => b.textContent?.includes('Cancel task'))).toBe(false);
    } finally {
      useObserve.setState({ connectionId: undefined, source: undefined });
    }
  });

  it('says in its header that the report card’s check started the task, when it did', () => {
    show({ tool: 'slow_job', entries: [obs(T0, 'working', { source: 'create' })] });
    expect($('started-by-check')).toBeNull();
    show(
      { tool: 'slow_job', startedBy: 'check', entries: [obs(T0, 'working', { source: 'create' })] },
      undefined,
      'task-2',
    );
    const badge = view.container.querySelector<HTMLElement>('header [data-testid="started-by-check"]');
    expect(badge?.textContent).toBe('check');
    expect(badge?.title).toContain("the report card's check");
  });

  it('shows progress as a bar with its message, each report as a mark and an observation, and log lines among them', () => {
    show({
      status: 'working',
      lifecycle: 'live',
      progress: { progress: 3, total: 4, message: 'Step 3/4: bar', at: T0 + 700 },
      entries: [
        { kind: 'progress', at: T0 - 20, progress: 0, total: 4, message: 'Step 0/4: bar' },
        obs(T0, 'working', { source: 'create', sentAt: T0 - 30 }),
        {
          kind: 'log',
          at: T0 + 5,
          level: 'info',
          logger: 'slow_job',
          text: 'slow_job logged: 4 steps over 800 ms',
        },
        { kind: 'progress', at: T0 + 300, progress: 2, total: 4, message: 'Step 2/4: bar' },
        { kind: 'progress', at: T0 + 700, progress: 3, total: 4, message: 'Step 3/4: bar' },
      ],
    });
    const bar = view.container.querySelector('[role="progressbar"]')!;
    expect(bar.getAttribute('aria-valuenow')).toBe('3');
    expect(bar.getAttribute('aria-valuemax')).toBe('4');
    expect(view.container.textContent).toContain('Step 3/4: bar');
    expect(all('[data-testid="timeline"] [data-mark="progress"]')).toHaveLength(3);
    expect(all('[data-testid="timeline"] [data-mark="log"]')).toHaveLength(1);
    const progress = obsRows('progress');
    expect(progress).toHaveLength(3);
    expect(progress[0]?.textContent).toContain('3/4');
    expect(progress[0]?.textContent).toContain('Step 3/4: bar');
    expect(obsRows('log info').map((tr) => tr.textContent)).toEqual([
      expect.stringContaining('slow_job: slow_job logged: 4 steps over 800 ms'),
    ]);
    // Reports that came before the create answer: still a task created here, never drawn as unobserved.
    expect($('unobserved')).toBeNull();
  });

  it('draws the pollInterval in force as a step line, the slower step higher, and as a column', () => {
    show(
      {
        status: 'completed',
        lifecycle: 'terminal',
        entries: [
          obs(T0, 'working', { source: 'create', pollInterval: 250 }),
          obs(T0 + 250, 'working', { pollInterval: 250 }),
          obs(T0 + 500, 'working', { pollInterval: 250 }),
          obs(T0 + 1300, 'working', { pollInterval: 2000 }),
          obs(T0 + 3300, 'completed', { pollInterval: 2000 }),
        ],
      },
      { createdAtMs: T0, pollInterval: 2000 },
    );
    const steps = all('[data-testid="poll-step"]');
    expect(steps.map((s) => s.dataset.interval)).toEqual(['250', '2000']);
    expect(parseFloat(steps[1]!.style.top)).toBeLessThan(parseFloat(steps[0]!.style.top));
    const column = all('[data-testid="obs-poll-interval"]').map((td) => td.textContent);
    expect(column).toContain('250 ms');
    expect(column).toContain('2 s');
  });

  it('marks the TTL deadline at its time on the result’s axis, or at the right edge saying where it is', () => {
    const entries = [
      obs(T0, 'working', { source: 'create', sentAt: T0 - 10 }),
      obs(T0 + 2500, 'completed'),
      {
        kind: 'result',
        at: T0 + 2520,
        sentAt: T0 + 2505,
        latencyMs: 15,
        outcome: 'fetched',
        warnings: [],
      } satisfies TimelineEntry,
    ];
    show({ status: 'completed', lifecycle: 'terminal', entries }, { createdAtMs: T0, ttl: 3500 });
    const deadline = view.container.querySelector<HTMLElement>('[data-testid="timeline"] [data-mark="ttl"]')!;
    expect(deadline.title).toMatch(/^TTL deadline \d\d:\d\d:\d\d\.\d{3}: createdAt \+ ttl/);
    const result = view.container.querySelector<HTMLElement>('[data-mark="result"]')!;
    expect(result.title).toMatch(/^tasks\/result \d\d:\d\d:\d\d\.\d{3}/);
    // The deadline came after the result: it stands to its right.
    expect(parseFloat(deadline.style.left)).toBeGreaterThan(parseFloat(result.style.left));

    show({ status: 'completed', lifecycle: 'terminal', entries }, { createdAtMs: T0, ttl: 60_000 }, 'task-2');
    const edge = view.container.querySelector<HTMLElement>('[data-testid="timeline"] [data-mark="ttl"]')!;
    expect(edge.title).toMatch(/^TTL deadline \d\d:\d\d:\d\d\.\d{3} →: .* past the right edge/);
    expect(edge.style.left).toBe('100%');
  });

  it('scales a completed task’s timeline to its run, and says its ttl apart instead of squeezing the run', () => {
    vi.useFakeTimers({ now: T0 + 10_000, toFake: ['Date'] });
    // A 6 s run with a 60 s ttl: drawn to the deadline, the run would be its first tenth.
    show(
      {
        status: 'completed',
        lifecycle: 'terminal',
        entries: [
          obs(T0, 'working', { source: 'create', sentAt: T0 - 10 }),
          obs(T0 + 3000, 'working', { sentAt: T0 + 2990 }),
          obs(T0 + 6000, 'completed', { sentAt: T0 + 5990 }),
        ],
      },
      { createdAtMs: T0, ttl: 60_000 },
    );
    const polls = [
      ...view.container.querySelectorAll<HTMLElement>('[data-testid="timeline"] [data-mark="poll"]'),
    ];
    expect(parseFloat(polls.at(-1)!.style.left)).toBeGreaterThan(90);
    const edge = view.container.querySelector<HTMLElement>('[data-testid="timeline"] [data-mark="ttl"]')!;
    expect(edge.style.left).toBe('100%');
    expect($('ttl-beyond')?.textContent).toMatch(
      /^TTL deadline → \d\d:\d\d:\d\d\.\d{3}, 54 s past the right edge \(the receiver may purge it in 50 s\)$/,
    );
  });

  it('draws the time before a late first sight as not observed, before the ended status, which claims no length', () => {
    // Listed 1.2 s after the receiver created it, already completed.
    show(
      {
        status: 'completed',
        lifecycle: 'terminal',
        origin: 'list',
        entries: [obs(T0 + 1200, 'completed', { source: 'list', sentAt: T0 + 1190 })],
      },
      { createdAtMs: T0, lastUpdatedAtMs: T0 + 1200 },
    );
    const unobserved = $('unobserved')!;
    expect(unobserved.textContent).toMatch(/^not observed 1(\.\d)? s$/);
    const completed = view.container.querySelector<HTMLElement>(
      '[data-testid="timeline"] [data-status="completed"]',
    )!;
    expect(completed.textContent).toBe('completed');
    expect(unobserved.style.left).toBe('0%');
    expect(completed.style.left).not.toBe('0%');
    // How long it took (createdAt to its end), not how long ago it was listed.
    expect($('task-time')?.textContent).toBe('took 1.2 s');
  });

  it('reads every time in one 24-hour form, to the millisecond in the timeline’s hovers and the table', () => {
    const afternoon = new Date(2026, 11, 7, 15, 4, 5, 678).getTime();
    show({
      status: 'working',
      lifecycle: 'live',
      entries: [obs(afternoon, 'working', { source: 'create', sentAt: afternoon - 12 })],
    });
    expect(view.container.querySelector<HTMLElement>('[data-mark="create"]')?.title).toMatch(
      /(sent|at) 15:04:05\.\d{3}/,
    );
    const firstCell = view.container.querySelector('[data-testid="observations"] tbody tr[data-kind] td');
    expect(firstCell?.textContent).toBe('15:04:05.678');
    expect(view.container.textContent).not.toMatch(/\d(AM|PM)\b| (AM|PM)\b/);
  });
});

describe('a row’s time', () => {
  it('is the duration for an ended task, labelled and still; the age for a live one, counting on the one clock', () => {
    vi.useFakeTimers({ now: T0 + 5000 });
    const ended = newTrackedTask({
      taskId: 'ended',
      connectionId: 1,
      origin: 'created',
      firstSeenAt: T0,
      status: 'failed',
      lifecycle: 'terminal',
      entries: [obs(T0, 'working', { source: 'create' }), obs(T0 + 1500, 'failed')],
    });
    const live = newTrackedTask({
      taskId: 'live',
      connectionId: 1,
      origin: 'created',
      firstSeenAt: T0,
      status: 'working',
      entries: [obs(T0, 'working', { source: 'create' })],
    });
    act(() =>
      view.root.render(
        <QueryClientProvider client={queryClient}>
          <TaskTime task={ended} />
          <TaskTime task={live} />
        </QueryClientProvider>,
      ),
    );
    const [took, age] = all('[data-testid="task-time"]');
    expect(took?.textContent).toBe('took 1.5 s');
    expect(age?.textContent).toBe('age 5 s');
    act(() => vi.advanceTimersByTime(3000));
    expect(age?.textContent).toBe('age 8 s');
    expect(took?.textContent).toBe('took 1.5 s');
  });
});
