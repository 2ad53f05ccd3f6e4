// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { reactRoot } from '../../test/helpers/react-root';
import { formatClock } from '../format/time';
import type { ReportCard } from '../rules/report-types';
import { useConnection } from '../state/connection-store';
import { useReplay } from '../state/replay-store';
import { useSelection } from '../state/selection-store';
import { clientBreaksOf, useObserve } from '../state/observe-store';
import type { ClientCard } from '../rules/client-judge';
import { ObservationTable } from '../tasks/views/ObservationTable';
import { newTrackedTask, type ObservationEntry } from '../tracker/task-store';
import ReportCardBody from './ReportCard';
import { openReport, useReport } from './report-store';

/**
 * The card as the page draws it from a judged card. Which rule a fault breaks, and that its first offence names
 * the task and the moment, is the engine's (test/integration/report-offence.test.ts, active-check.test.ts);
 * here, what the card does with it.
 */
const judged = vi.hoisted(() => ({ card: undefined as ReportCard | undefined }));
vi.mock('./hooks', () => ({ useReportCard: () => judged.card }));

const OFFENCE_AT = Date.UTC(2026, 11, 1, 7, 59, 0);

const card: ReportCard = {
  receiver: { url: 'http://127.0.0.1:3001/mcp?faults=terminal-cancel-accepted', era: '2025-11-25' },
  generatedAt: OFFENCE_AT + 5000,
  rules: [
    {
      id: 'terminal-cancel-refused',
      verdict: 'fail',
      observations: 1,
      reason: 'tasks/cancel on a completed task was accepted.',
      firstOffence: { taskId: 'task-7', at: OFFENCE_AT, detail: 'tasks/cancel answered with a task' },
      source: 'active',
    },
    {
      id: 'unknown-task-error',
      verdict: 'pass',
      observations: 1,
      reason: 'An unknown id got -32602.',
      source: 'active',
    },
  ],
  counts: { fail: 1, warn: 0, info: 0, pass: 1, unobserved: 0 },
};

const view = reactRoot();
beforeEach(() => {
  judged.card = card;
  useConnection.setState({ id: 1, url: card.receiver.url, status: 'connected' });
  useReplay.setState({ connectionId: undefined });
  useSelection.setState({ selection: { kind: 'none' } });
  useReport.setState({ open: false, check: undefined, checkError: undefined });
  openReport();
});

const $ = (selector: string) => view.container.querySelector<HTMLElement>(selector);

describe('the report card', () => {
  it('a broken rule is counted, and its first offence opens the task at that moment, closing the card', () => {
    act(() => view.root.render(<ReportCardBody />));
    expect($('[data-rule="terminal-cancel-refused"]')?.dataset.verdict).toBe('fail');
    expect($('[data-testid="report-count-fail"]')?.textContent).toContain('1');
    expect(useReport.getState().open).toBe(true);
    const link = $('[data-rule="terminal-cancel-refused"] [data-testid="offence-link"]')!;
    expect(link.textContent).toContain('task-7');
    act(() => link.click());
    expect(useReport.getState().open).toBe(false);
    expect(new URL(window.location.href).searchParams.get('report')).toBeNull();
    expect(useSelection.getState().selection).toEqual({ kind: 'task', taskId: 'task-7', at: OFFENCE_AT });
  });

  it('during a replay the check is off, and the card says why', () => {
    useReplay.setState({ connectionId: 2 });
    act(() => view.root.render(<ReportCardBody />));
    expect(($('[data-testid="check-receiver"]') as HTMLButtonElement).disabled).toBe(true);
    expect($('[data-testid="check-replay-note"]')?.textContent).toContain('replay of a recording');
  });

  it('connected and not replaying, the check can be started', () => {
    act(() => view.root.render(<ReportCardBody />));
    expect(($('[data-testid="check-receiver"]') as HTMLButtonElement).disabled).toBe(false);
    expect($('[data-testid="check-replay-note"]')).toBeNull();
  });
});

describe('a task opened at a moment', () => {
  it('marks the observation nearest that moment, and scrolls it into view', () => {
    // jsdom lays nothing out: the table's scroller is given a size, so its virtual rows are drawn.
    const height = vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(400);
    const width = vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
    const scrolled = vi.fn();
    Element.prototype.scrollIntoView = scrolled;
    const obs = (at: number, status: ObservationEntry['status']): ObservationEntry => ({
      kind: 'observation',
      at,
      source: 'poll',
      status,
      warnings: [],
    });
    const task = newTrackedTask({
      taskId: 'task-7',
      connectionId: 1,
      origin: 'created',
      firstSeenAt: OFFENCE_AT - 3000,
      entries: [
        obs(OFFENCE_AT - 3000, 'working'),
        obs(OFFENCE_AT - 1000, 'completed'),
        obs(OFFENCE_AT + 40, 'completed'),
        obs(OFFENCE_AT + 2000, 'completed'),
      ],
    });
    act(() => view.root.render(<ObservationTable task={task} focusAt={OFFENCE_AT} />));
    const focused = view.container.querySelectorAll('[data-testid="observations"] tr[data-focused]');
    expect(focused).toHaveLength(1);
    expect(focused[0]?.textContent).toContain(formatClock(OFFENCE_AT + 40, { millis: true }));
    expect(scrolled).toHaveBeenCalled();
    height.mockRestore();
    width.mockRestore();
  });
});

describe('the card while a client is observed', () => {
  const clientCard: ClientCard = {
    era: '2025-11-25',
    documentsFlavour: false,
    rules: [
      {
        id: 'client-poll-cadence',
        side: 'client',
        verdict: 'warn',
        observations: 4,
        reason: '3 polls came sooner than the pollInterval the previous answer gave.',
        firstOffence: {
          taskId: 'task-9',
          at: OFFENCE_AT,
          detail: 'tasks/get 90 ms after an answer that asked for 1000 ms',
        },
        byTask: [
          {
            taskId: 'task-9',
            at: OFFENCE_AT,
            detail: 'tasks/get 90 ms after an answer that asked for 1000 ms',
          },
        ],
      },
      {
        id: 'client-stops-at-terminal',
        side: 'client',
        verdict: 'pass',
        observations: 1,
        reason: 'Stopped.',
      },
    ],
    counts: { fail: 0, warn: 1, info: 0, pass: 1, unobserved: 0 },
  };

  it('shows the client judged by the client rules beside the receiver’s, each rule saying its side', () => {
    useObserve.setState({
      connectionId: 1,
      source: 'demo',
      news: {
        name: 'demo',
        kind: 'http',
        upstream: 'http://127.0.0.1:3001/mcp',
        sessions: [
          { key: 'session:s1', label: 'agent 2.1', era: '2025-11-25', tasks: 1, lastAt: OFFENCE_AT },
        ],
        selected: 'session:s1',
        clientCard,
      },
    });
    act(() => view.root.render(<ReportCardBody />));
    const section = $('[data-testid="client-card"]');
    expect(section?.textContent).toContain('The client: agent 2.1');
    const rows = [...(section?.querySelectorAll<HTMLElement>('[data-testid="report-rule"]') ?? [])];
    expect(rows.map((r) => [r.dataset.rule, r.dataset.verdict])).toEqual([
      ['client-poll-cadence', 'warn'],
      ['client-stops-at-terminal', 'pass'],
    ]);
    expect(rows[0]?.querySelector('[data-testid="rule-side"]')?.textContent).toBe('client');
    expect($('[data-testid="report-rules"] [data-testid="rule-side"]')?.textContent).toBe('receiver');
    // The offence opens the client's task at that moment, as a receiver's does.
    act(() => rows[0]?.querySelector<HTMLElement>('[data-testid="offence-link"]')?.click());
    expect(useSelection.getState().selection).toEqual({ kind: 'task', taskId: 'task-9', at: OFFENCE_AT });
    // A task's own view lists the client's breaks on it.
    expect(clientBreaksOf(clientCard, 'task-9')).toEqual([
      expect.objectContaining({ id: 'client-poll-cadence', strength: 'SHOULD', at: OFFENCE_AT }),
    ]);
    expect(clientBreaksOf(clientCard, 'other')).toEqual([]);
    useObserve.setState({ connectionId: undefined, source: undefined, news: undefined });
  });
});
