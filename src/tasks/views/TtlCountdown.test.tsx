// @vitest-environment jsdom
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TaskSnapshot } from '../../mcp';
import { newTrackedTask } from '../../tracker/task-store';
import { reactRoot } from '../../../test/helpers/react-root';
import { TtlCountdown } from './TtlCountdown';
import { Headline } from './TaskNotes';

const view = reactRoot();
beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2026-12-01T10:00:00Z') });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('TtlCountdown', () => {
  it('counts down by whole seconds, then says expired, then purged once the receiver has let the task go', () => {
    const createdAtMs = Date.now();
    const snapshot: TaskSnapshot = {
      taskId: 't',
      status: 'completed',
      createdAt: new Date(createdAtMs).toISOString(),
      createdAtMs,
      ttl: 3000,
      shape: 'flat',
    };
    const shown = () => view.container.querySelector('[data-testid="ttl-countdown"]')?.textContent;
    act(() => view.root.render(<TtlCountdown snapshot={snapshot} purged={false} />));
    expect(shown()).toBe('3 s');
    act(() => vi.advanceTimersByTime(1250));
    expect(shown()).toBe('2 s');
    act(() => vi.advanceTimersByTime(1000));
    expect(shown()).toBe('1 s');
    act(() => vi.advanceTimersByTime(1000));
    expect(shown()).toBe('expired — the receiver may purge it now');
    act(() => view.root.render(<TtlCountdown snapshot={snapshot} purged />));
    expect(shown()).toBe('purged — the receiver no longer has this task');
  });

  it('stops counting once the task’s session has ended: nothing holds it to a ttl any more', () => {
    const createdAtMs = Date.now();
    const snapshot: TaskSnapshot = {
      taskId: 't',
      status: 'working',
      createdAt: new Date(createdAtMs).toISOString(),
      createdAtMs,
      ttl: 60_000,
      shape: 'flat',
    };
    const shown = () => view.container.querySelector('[data-testid="ttl-countdown"]')?.textContent;
    act(() => view.root.render(<TtlCountdown snapshot={snapshot} purged={false} ended />));
    expect(shown()).toBe('none left — its session ended');
    act(() => vi.advanceTimersByTime(5000));
    expect(shown()).toBe('none left — its session ended');
    act(() => view.root.render(<TtlCountdown snapshot={snapshot} purged={false} ended compact />));
    expect(view.container.textContent).toBe('session ended');
  });
});

describe('Headline', () => {
  it('shows a statusMessage as text: HTML in it is no element', () => {
    const message = '<img src=x onerror="window.pwned=1"> [click me](javascript:window.pwned=2)';
    const task = newTrackedTask({ taskId: 't', connectionId: 1, origin: 'created', firstSeenAt: Date.now() });
    act(() =>
      view.root.render(
        <Headline
          task={{ ...task, status: 'working' }}
          snapshot={{ taskId: 't', status: 'working', statusMessage: `Step 1/1: ${message}`, shape: 'flat' }}
        />,
      ),
    );
    const shown = view.container.querySelector('[data-testid="status-message"]')!;
    expect(shown.textContent).toBe(`Step 1/1: ${message}`);
    expect(shown.querySelector('img, a')).toBeNull();
  });
});
