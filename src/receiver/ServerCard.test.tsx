// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { reactRoot } from '../../test/helpers/react-root';
import { useConnection } from '../state/connection-store';
import { useReplay } from '../state/replay-store';
import { tasksStore } from '../tasks/tasks-store';
import { TaskSupportBadge } from '../tools/TaskSupportBadge';
import { ServerCard } from './ServerCard';

/**
 * The receiver card from the connection the engine reported. What the engine finds (the generation, how it was
 * found, the tasks support) is checked in test/integration/dialect-2026.test.ts and server-everything.test.ts;
 * here, how the card says it.
 */
const view = reactRoot();
beforeEach(() => {
  useReplay.setState({ connectionId: undefined });
  tasksStore.setState({ dialects: [] });
});

const text = (testId: string) =>
  view.container.querySelector(`[data-testid="${testId}"]`)?.textContent ?? null;

describe('the receiver card', () => {
  it('a 2026-07-28 receiver: its protocol found by server/discover, no sessions, no tasks/list, the shape it speaks', () => {
    useConnection.setState({
      id: 1,
      url: 'http://127.0.0.1:1/mcp-2026',
      status: 'connected',
      server: {
        name: 'taskscope-demo-2026',
        version: '1.0.0',
        protocolVersion: '2026-07-28',
        capabilities: {},
      },
      support: { list: false, cancel: true, toolCall: true, era: '2026-07-28' },
      era: '2026-07-28',
      detectedBy: 'discover',
      sessionId: undefined,
      resumed: false,
    });
    tasksStore.setState({ dialects: ['v2'] });
    act(() => view.root.render(<ServerCard />));
    expect(text('protocol-version')).toBe('2026-07-28');
    expect(text('era-detection')).toContain('server/discover');
    expect(text('session-id')).toContain('2026-07-28 has no sessions');
    expect(text('task-capabilities')).toContain('✓ tools/call');
    expect(text('task-capabilities')).not.toContain('list');
    expect(text('dialects')).toContain('2026-07-28 shape');
    expect(text('session-note')).toBeNull();
  });

  it('a 2025-11-25 session taken up again after a reload: its id, and said so', () => {
    useConnection.setState({
      id: 2,
      url: 'http://127.0.0.1:1/mcp',
      status: 'connected',
      server: {
        name: 'mcp-servers/everything',
        version: '2.0.0',
        protocolVersion: '2025-11-25',
        capabilities: { tasks: {} },
      },
      support: { list: true, cancel: true, toolCall: true },
      era: '2025-11-25',
      detectedBy: 'resumed',
      sessionId: 'session-42',
      resumed: true,
    });
    act(() => view.root.render(<ServerCard />));
    expect(text('session-id')).toBe('session-42');
    expect(text('session-note')).toContain('Session resumed');
    expect(text('task-capabilities')).toContain('✓ list');
    expect(text('task-capabilities')).toContain('✓ tools/call');
  });

  it("a tool's task support in words: required, forbidden, and on 2026-07-28 the receiver's choice", () => {
    act(() =>
      view.root.render(
        <>
          <span data-testid="required">
            <TaskSupportBadge support="required" />
          </span>
          <span data-testid="forbidden">
            <TaskSupportBadge support="forbidden" />
          </span>
          <span data-testid="receiver">
            <TaskSupportBadge support="receiver" />
          </span>
        </>,
      ),
    );
    expect(text('required')).toBe('task required');
    expect(text('forbidden')).toBe('no task');
    expect(text('receiver')).toBe('receiver decides');
  });
});
