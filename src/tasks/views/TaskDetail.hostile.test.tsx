// @vitest-environment jsdom
import { act } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { beforeEach, describe, expect, it } from 'vitest';
import { createQueryClient } from '../../tracker/queries';
import { newTrackedTask, type TimelineEntry, type TrackedTask } from '../../tracker/task-store';
import { applyTaskChanges } from '../../tracker/task-changes';
import { useConnection } from '../../state/connection-store';
import type { Normalised, TaskResultSnapshot, TaskSnapshot } from '../../mcp';
import { tasksStore } from '../tasks-store';
import { TaskDetail } from './TaskDetail';
import { TaskRow } from './TaskRow';
import { reactRoot } from '../../../test/helpers/react-root';

/**
 * The task detail drawn from the records the engine sends for the hostile receiver's cases
 * (test/integration/hostile-engine.test.ts holds that the engine sends them): each figure in the form a person
 * reads, each warning where the task shows it.
 */
const view = reactRoot();
// jsdom lays nothing out: the observations' virtual rows get a viewport of 400 px.
Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 400 });
Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 800 });
beforeEach(() => {
  useConnection.setState({ id: 1 });
  tasksStore.getState().reset(1);
});

const observation = (over: Partial<Extract<TimelineEntry, { kind: 'observation' }>> = {}): TimelineEntry => ({
  kind: 'observation',
  at: Date.now(),
  source: 'list',
  status: 'working',
  lastUpdatedAt: new Date().toISOString(),
  createdAt: new Date().toISOString(),
  ttl: 600_000,
  pollInterval: 1000,
  warnings: [],
  ...over,
});

interface Drawn {
  task?: Partial<TrackedTask>;
  entries?: TimelineEntry[];
  snapshot?: Partial<TaskSnapshot>;
  result?: Normalised<TaskResultSnapshot>;
}

/** The detail (and the row) of task `t`, drawn from its record, snapshot and result as a batch brings them. */
function draw({ task = {}, entries = [observation()], snapshot = {}, result }: Drawn) {
  const queryClient = createQueryClient();
  const { entries: _none, ...record } = newTrackedTask({
    taskId: 't',
    connectionId: 1,
    origin: 'list',
    firstSeenAt: Date.now(),
    status: 'working',
    ...task,
  });
  applyTaskChanges(tasksStore, { added: ['t'], changes: [{ task: record, newEntries: entries }] });
  const snapshots: Array<[string, TaskSnapshot]> = [
    [
      't',
      {
        taskId: 't',
        status: 'working',
        shape: 'flat',
        ttl: 600_000,
        pollInterval: 1000,
        createdAt: new Date().toISOString(),
        createdAtMs: Date.now(),
        ...snapshot,
      },
    ],
  ];
  tasksStore.getState().apply({ snapshots, results: result ? [['t', result]] : [] });
  act(() =>
    view.root.render(
      <QueryClientProvider client={queryClient}>
        <TaskRow taskId="t" />
        <TaskDetail taskId="t" />
      </QueryClientProvider>,
    ),
  );
  const text = (testId: string) =>
    view.container.querySelector(`[data-testid="task-detail"] [data-testid="${testId}"]`)?.textContent ?? '';
  return { text, detail: view.container.querySelector('[data-testid="task-detail"]')?.textContent ?? '' };
}

describe('TaskDetail draws what the engine says of a hostile receiver', () => {
  it('a pollInterval of 1e12 ms: the interval in force as years, and its warning on the timeline', () => {
    const { text } = draw({
      task: { nextPollInMs: 1e12, warningCount: 1 },
      entries: [
        observation({
          pollInterval: 1e12,
          warnings: [
            {
              code: 'bad-poll-interval',
              message: 'pollInterval 1000000000000 ms is over an hour; honoured, but check its unit',
            },
          ],
        }),
      ],
      snapshot: { pollInterval: 1e12 },
    });
    expect(text('interval-in-force')).toContain('31.7 years');
    expect(text('observations')).toContain('over an hour');
  });

  it('a Retry-After of 4,000 s: "Rate limited", and the wait in force is 1.1 h, not a backoff of seconds', () => {
    const error = {
      kind: 'rate-limited' as const,
      httpStatus: 429,
      retryAfterMs: 4_000_000,
      message: 'The receiver is rate-limiting (HTTP 429); backing off.',
    };
    const { text, detail } = draw({
      task: { nextPollInMs: 4_000_000, backoffMs: 1000, pollCount: 1, rateLimitedCount: 1, lastError: error },
      entries: [
        observation(),
        { kind: 'error', at: Date.now(), sentAt: Date.now(), source: 'poll', error, retryInMs: 4_000_000 },
      ],
    });
    expect(detail).toContain('Rate limited');
    expect(text('interval-in-force')).toBe('1.1 h');
  });

  it('a 20 MB statusMessage: drawn cut to 4,000 characters, and the cut flagged on the timeline', () => {
    const cut = 'This statusMessage is 20 MB long. '.repeat(200).slice(0, 4000);
    const { text } = draw({
      entries: [
        observation({
          source: 'poll',
          statusMessage: cut,
          warnings: [{ code: 'schema', message: 'statusMessage of 20000000 characters cut to 4000' }],
        }),
      ],
      snapshot: { statusMessage: cut },
    });
    expect(text('status-message').length).toBeGreaterThan(1000);
    expect(text('status-message').length).toBeLessThanOrEqual(4001);
    expect(text('observations')).toContain('cut to 4000');
  });

  it('ttl 1e300: "effectively none" in the row and the detail, not a number no one can read', () => {
    const { text } = draw({
      entries: [
        observation({
          ttl: 1e300,
          warnings: [
            { code: 'bad-ttl', message: 'ttl 1.00e+300 ms is over a century: effectively no expiry' },
          ],
        }),
      ],
      snapshot: { ttl: 1e300 },
    });
    expect(view.container.querySelector('[data-testid="task-row"]')?.textContent).toContain(
      'effectively none',
    );
    expect(text('ttl-countdown')).toBe('ttl 1.00e+300 ms — effectively none');
  });

  it('a task stamped a day ahead is flagged; a task beside it counts its TTL down from 10 min', () => {
    const ahead = draw({
      entries: [
        observation({
          warnings: [
            {
              code: 'bad-timestamp',
              message:
                "lastUpdatedAt is 24 h ahead of this receiver's clock as its other answers show it: left out of the clock offset",
            },
          ],
        }),
      ],
    });
    expect(ahead.text('observations')).toContain("ahead of this receiver's clock");
    // The other task, created now with ttl 10 min, at the clock offset the engine kept near zero.
    const normal = draw({ snapshot: { ttl: 600_000, createdAtMs: Date.now() } });
    expect(normal.text('ttl-countdown')).toMatch(/^(9 min( \d+ s)?|10 min)/);
  });

  it('a result nested 100,000 deep, as the engine cut it: drawn with its warning, not as an error', () => {
    let cut: Record<string, unknown> = { '…': 'cut' };
    for (let i = 0; i < 63; i++) cut = { a: cut };
    const warning = {
      code: 'bad-result' as const,
      message: 'result nested deeper than 64 levels or over 200000 values; shown cut',
    };
    const { text } = draw({
      task: {
        status: 'completed',
        lifecycle: 'terminal',
        nextPollInMs: null,
        result: { state: 'fetched', at: Date.now() },
      },
      entries: [
        observation({ status: 'completed' }),
        {
          kind: 'result',
          at: Date.now(),
          sentAt: Date.now(),
          latencyMs: 30,
          outcome: 'fetched',
          warnings: [warning],
        },
      ],
      snapshot: { status: 'completed' },
      result: {
        value: { result: { content: [], structuredContent: cut }, isError: false, shape: 'plain' },
        warnings: [warning],
      },
    });
    expect(text('result')).toContain('nested deeper than 64 levels');
    expect(view.container.querySelector('[data-testid="render-error"]')).toBeNull();
  });

  it('an early purge: a MUST linked to its rule, counted in the warnings, and on the timeline at the purge, with the deadline drawn where it lay', () => {
    const t0 = Date.now() - 10_000;
    const created = new Date(t0).toISOString();
    const poll = (at: number) =>
      observation({
        at: t0 + at,
        sentAt: t0 + at - 5,
        source: 'poll',
        createdAt: created,
        ttl: 8000,
        pollInterval: 500,
      });
    const { text } = draw({
      task: { lifecycle: 'purged', nextPollInMs: null, pollCount: 5, firstSeenAt: t0 },
      entries: [
        observation({ at: t0, source: 'create', createdAt: created, ttl: 8000, pollInterval: 500 }),
        ...[500, 1000, 1500, 2000, 2500].map(poll),
        { kind: 'purged', at: t0 + 3000, error: { kind: 'purged', message: 'gone' } },
      ],
      snapshot: { ttl: 8000, pollInterval: 500, createdAt: created, createdAtMs: t0 },
    });
    const detail = view.container.querySelector('[data-testid="task-detail"]')!;
    const line = detail.querySelector('[data-testid="rule-breaks"] [data-rule="ttl-not-purged-early"]')!;
    expect(line.textContent).toContain('MUST');
    expect(line.textContent).toMatch(/purged \d s before its ttl ran out/);
    expect(line.querySelector('[data-testid="rule-link"]')?.getAttribute('href')).toMatch(
      /modelcontextprotocol\.io\/specification\/2025-11-25\/basic\/utilities\/tasks#/,
    );
    expect(text('warning-count')).not.toBe('0');
    // A task gone before it ended has no outcome: "purged" is its badge.
    expect(view.container.querySelector('[data-testid="task-row"]')?.textContent).toContain('purged');
    expect(view.container.querySelector('[data-testid="purged-marker"]')).toBeNull();

    const timeline = detail.querySelector('[data-testid="timeline"]')!;
    const marks = (selector: string) => [...timeline.querySelectorAll<HTMLElement>(selector)];
    const left = (el: HTMLElement | undefined) => parseFloat(el?.style.left ?? 'NaN');
    const [rule] = marks('[data-mark="rule"][data-rule="ttl-not-purged-early"]');
    const purge = marks('[data-mark="purge"]');
    const deadline = marks('[data-mark="ttl"]');
    expect(rule).toBeDefined();
    expect(purge).toHaveLength(1);
    expect(deadline).toHaveLength(1);
    // The deadline (8 s after creation) well right of the purge (at 3 s), not squeezed onto the bar's end;
    // the rule's mark where the purge is.
    expect(left(deadline[0])).toBeGreaterThan(left(purge[0]) + 20);
    expect(Math.abs(left(rule) - left(purge[0]))).toBeLessThan(1);
  });

  it('a failed task purged after its ttl keeps "failed" as its badge, with purged beside it', () => {
    draw({
      task: { status: 'failed', lifecycle: 'purged', nextPollInMs: null },
      entries: [
        observation({ status: 'failed' }),
        { kind: 'purged', at: Date.now(), error: { kind: 'purged', message: 'gone' } },
      ],
      snapshot: { status: 'failed' },
    });
    const row = view.container.querySelector('[data-testid="task-row"]')!;
    expect(row.textContent).toContain('failed');
    expect(row.querySelector('[data-testid="purged-marker"]')).not.toBeNull();
  });
});
