// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { reactRoot } from '../../test/helpers/react-root';
import { useInbox } from '../inbox/inbox-store';
import type { ServerTaskSupport, ToolInfo } from '../mcp';
import { useConnection } from '../state/connection-store';
import { useReplay } from '../state/replay-store';
import { RunToolForm } from './RunToolForm';

// A plain call that is still waiting for its answer (the receiver asks something first).
vi.mock('./run-actions', () => ({
  callToolPlain: () => new Promise(() => undefined),
  runToolAsTask: () => new Promise(() => undefined),
}));

/** The run form for the receiver's generation, and a plain call's question shown where the call waits. */
const slowJob: ToolInfo = {
  name: 'slow_job',
  inputSchema: { type: 'object', properties: { label: { type: 'string' } } },
  taskSupport: 'receiver',
};

const view = reactRoot();
beforeEach(() => {
  useConnection.setState({ id: 1, url: 'http://127.0.0.1:1/mcp', status: 'connected' });
  useReplay.setState({ connectionId: undefined });
  useInbox.setState({ items: [] });
});

const $ = (selector: string) => view.container.querySelector<HTMLElement>(selector);

describe('the run form', () => {
  it('on 2026-07-28 asks no ttl: the receiver decides whether the call is a task, and how long it is kept', () => {
    act(() =>
      view.root.render(
        <RunToolForm
          tool={slowJob}
          support={{ list: false, cancel: true, toolCall: true, era: '2026-07-28' }}
        />,
      ),
    );
    expect($('[data-testid="no-ttl-2026"]')?.textContent).toContain('the receiver chooses');
    expect($('#task-ttl')).toBeNull();
    expect($('[data-testid="run-form"]')?.textContent).toContain('receiver decides');
  });

  it('on 2025-11-25 asks the task ttl beside the arguments', () => {
    act(() =>
      view.root.render(
        <RunToolForm
          tool={{ ...slowJob, taskSupport: 'optional' }}
          support={{ list: true, cancel: true, toolCall: true }}
        />,
      ),
    );
    expect($('#task-ttl')).not.toBeNull();
    expect($('[data-testid="no-ttl-2026"]')).toBeNull();
  });

  it('a question asked during a plain call waits in the form, outside any task', () => {
    act(() =>
      view.root.render(
        <RunToolForm
          tool={{ ...slowJob, name: 'trigger-sampling-request', taskSupport: 'forbidden' }}
          support={{ list: true, cancel: true, toolCall: true }}
        />,
      ),
    );
    act(() =>
      [...view.container.querySelectorAll('button')]
        .find((b) => b.textContent?.includes('Call without task'))!
        .click(),
    );
    act(() =>
      useInbox.getState().apply([
        {
          kind: 'asked',
          request: {
            key: '1:3:1',
            connectionId: 1,
            requestId: 3,
            method: 'sampling/createMessage',
            params: {
              messages: [{ role: 'user', content: { type: 'text', text: 'What is six times seven?' } }],
            },
            receivedAt: Date.now(),
          },
        },
      ]),
    );
    const item = $('[data-testid="run-form"] [data-testid="inbox-item"]');
    expect(item?.textContent).toContain('outside any task');
    expect(item?.querySelector('[data-testid="sampling-form"]')?.textContent).toContain(
      'What is six times seven?',
    );
  });
});

describe('task support', () => {
  const support: ServerTaskSupport = { list: true, cancel: true, toolCall: true };
  const echo = (taskSupport: ToolInfo['taskSupport']): ToolInfo => ({
    name: 'echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    taskSupport,
  });
  const runAsTask = () =>
    [...view.container.querySelectorAll('button')].find((b) => b.textContent?.includes('Run as task'))!;

  it('a tool that forbids tasks cannot run as one, and the form says why', () => {
    act(() => view.root.render(<RunToolForm tool={echo('forbidden')} support={support} />));
    expect(runAsTask().disabled).toBe(true);
    expect($('[data-testid="no-task-reason"]')?.textContent).toContain('taskSupport: forbidden');
  });

  it('a tool that may run as a task can', () => {
    act(() => view.root.render(<RunToolForm tool={echo('optional')} support={support} />));
    expect(runAsTask().disabled).toBe(false);
    expect($('[data-testid="no-task-reason"]')).toBeNull();
  });
});
