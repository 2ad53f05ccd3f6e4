// @vitest-environment jsdom
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reactRoot } from '../../../test/helpers/react-root';
import { useConnection } from '../../state/connection-store';
import { newTrackedTask, type ObservationEntry } from '../../tracker/task-store';
import { ObservationTable } from './ObservationTable';

/**
 * The observations of a 2026-07-28 task as the engine records them (test/integration/dialect-2026.test.ts: the
 * cancel acknowledged by an empty answer, then confirmed), drawn in the task's table.
 */
const view = reactRoot();
beforeEach(() => {
  useConnection.setState({ id: 1, era: '2026-07-28', status: 'connected' });
  // jsdom lays nothing out: the table's scroller is given a size, so its virtual rows are drawn.
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(400);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const obs = (at: number, over: Partial<ObservationEntry>): ObservationEntry => ({
  kind: 'observation',
  at,
  source: 'poll',
  status: null,
  warnings: [],
  ...over,
});

describe('the observation table', () => {
  it('shows each new statusMessage, and reads the cancel as acknowledged (the receiver may still go on), no warning', () => {
    const task = newTrackedTask({
      taskId: 't',
      connectionId: 1,
      origin: 'created',
      firstSeenAt: 1000,
      status: 'cancelled',
      entries: [
        obs(1000, { source: 'create', status: 'working', statusMessage: 'Step 1/2: v2' }),
        obs(1500, { status: 'working', statusMessage: 'Step 1/2: v2' }),
        obs(2000, { status: 'working', statusMessage: 'Step 2/2: v2' }),
        obs(2100, { source: 'cancel' }),
        obs(2500, { status: 'cancelled', statusMessage: 'Step 2/2: v2' }),
      ],
    });
    act(() => view.root.render(<ObservationTable task={task} />));
    const rows = [...view.container.querySelectorAll('[data-testid="observations"] tbody tr[data-kind]')];
    expect(rows).toHaveLength(5);
    const text = rows.map((r) => r.textContent ?? '');
    // Newest first; a statusMessage is shown where it changed, not on every repeat.
    expect(text[0]).toContain('cancelled');
    expect(text[0]).not.toContain('Step');
    expect(text[1]).toContain('acknowledged');
    expect(text[1]).toContain('may still go on');
    expect(text[1]).not.toContain('⚠');
    expect(text[1]).not.toContain('(ignored)');
    expect(text[2]).toContain('Step 2/2: v2');
    expect(text[3]).not.toContain('Step');
    expect(text[4]).toContain('Step 1/2: v2');
  });
});
