// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { useConnection } from '../state/connection-store';
import { tasksStore } from '../tasks/tasks-store';
import { reactRoot } from '../../test/helpers/react-root';
import { ReceiverNotes, ServerCard } from './ServerCard';
import { ConnectionProblem } from './ConnectionProblem';

/**
 * The receiver card and the connection problem drawn from what the engine said of the connection
 * (test/integration/hostile-engine.test.ts, user-docs-engine.test.ts and recovery.test.ts hold that it says it).
 */
const view = reactRoot();
beforeEach(() => {
  useConnection.setState({ id: 1, url: 'http://127.0.0.1:1/mcp', headers: {}, status: 'idle' }, true);
  tasksStore.setState({ dialects: [] });
});
const text = (testId: string) => view.container.querySelector(`[data-testid="${testId}"]`)?.textContent ?? '';

describe('the receiver card', () => {
  it('names the user documents’ dialect when the receiver answers in it', () => {
    useConnection.setState({
      status: 'connected',
      server: { name: 'user-docs-receiver', version: '1', capabilities: {} },
    });
    tasksStore.setState({ dialects: ['user-docs'] });
    act(() => view.root.render(<ServerCard />));
    expect(text('dialects')).toBe('user-document shapes');
  });

  it('says why the notification stream keeps reopening', () => {
    useConnection.setState({
      status: 'connected',
      streamNote:
        'The notification stream closed 2 times in the last minute; Taskscope reopens it no more than every few seconds, backing off.',
    });
    act(() => view.root.render(<ReceiverNotes />));
    expect(text('stream-note')).toContain('notification stream closed 2 times');
  });
});

describe('the connection problem', () => {
  it('a receiver that answers without CORS headers for this page: said as CORS, with the relay offered', () => {
    useConnection.setState({
      status: 'error',
      error: {
        kind: 'cors-or-network',
        diagnosis: 'cors',
        message:
          "The receiver at http://127.0.0.1:1/mcp answers, but does not allow this page's origin (http://127.0.0.1:5173) by CORS, or does not expose Mcp-Session-Id.",
      },
    });
    act(() => view.root.render(<ConnectionProblem />));
    const pane = view.container.querySelector('[role="alert"]')!;
    expect(pane.textContent).toContain("The receiver does not allow this page's origin (CORS)");
    expect(pane.textContent).toContain('its CORS settings do not allow this page');
    expect(text('relay-offer')).toContain('Connect through the local relay');
  });
});
