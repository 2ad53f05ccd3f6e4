// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { newTrackedTask, type TrackedTask } from '../../tracker/task-store';
import { useConnection } from '../../state/connection-store';
import { SessionNote } from './TaskNotes';
import { StatusBadge } from './StatusBadge';
import { reactRoot } from '../../../test/helpers/react-root';

/**
 * A task whose session ended (its receiver restarted and lost it) is said to be so, not purged, with what was
 * seen kept: drawn from its record. The engine's side (the receiver killed and restarted, the task ending as
 * "session ended") is test/integration/recovery.test.ts.
 */

const view = reactRoot();
const $ = (testId: string) => view.container.querySelector<HTMLElement>(`[data-testid="${testId}"]`);

const record = (over: Partial<TrackedTask> = {}): TrackedTask =>
  newTrackedTask({
    taskId: 'task-1',
    connectionId: 1,
    origin: 'created',
    firstSeenAt: Date.now() - 10_000,
    status: 'working',
    ...over,
  });

beforeEach(() => {
  useConnection.setState({ id: 1, status: 'connected' });
});

describe('a task whose session ended', () => {
  it('the detail says its session ended and the receiver does not know it now, keeps what was seen, and offers to ask again', () => {
    const task = record({
      lifecycle: 'session-ended',
      sessionId: 'f3a2c1d0-aaaa-bbbb-cccc-000000000000',
      sessionEndedAt: Date.now() - 2000,
    });
    act(() => view.root.render(<SessionNote task={task} />));
    const note = $('session-ended')?.textContent ?? '';
    expect(note).toMatch(/^Session f3a2c1d0… ended \d\d:\d\d:\d\d/);
    expect(note).toContain('does not know this task');
    expect(note).toContain('What was seen is kept');
    expect(note).not.toContain('purged');
    expect(view.container.querySelector('button')?.textContent).toContain('Ask again');
  });

  it('a live task in its session has no such note', () => {
    act(() => view.root.render(<SessionNote task={record({ lifecycle: 'live' })} />));
    expect($('session-ended')).toBeNull();
    expect(view.container.textContent).toBe('');
  });

  it('its row’s badge says "session ended" with the status it was last seen in, neither "working" nor "purged"', () => {
    act(() => view.root.render(<StatusBadge status="working" lifecycle="session-ended" />));
    expect(view.container.textContent).toBe('session ended · was working');
    expect(view.container.textContent).not.toContain('purged');
  });
});
