// @vitest-environment jsdom
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import type { ServerTaskSupport, ToolInfo } from '../mcp';
import { reactRoot } from '../../test/helpers/react-root';
import { RunToolForm } from './RunToolForm';

const view = reactRoot();
const support: ServerTaskSupport = { list: true, cancel: true, toolCall: true };
const tool = (taskSupport: ToolInfo['taskSupport']): ToolInfo => ({
  name: 'echo',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  taskSupport,
});
const runAsTask = () =>
  [...view.container.querySelectorAll('button')].find((b) => b.textContent?.includes('Run as task'))!;

describe('RunToolForm', () => {
  it('a tool that forbids tasks cannot run as one, and the form says why', () => {
    act(() => view.root.render(<RunToolForm tool={tool('forbidden')} support={support} />));
    expect(runAsTask().disabled).toBe(true);
    expect(view.container.querySelector('[data-testid="no-task-reason"]')?.textContent).toContain(
      'taskSupport: forbidden',
    );
  });

  it('a tool that may run as a task can', () => {
    act(() => view.root.render(<RunToolForm tool={tool('optional')} support={support} />));
    expect(runAsTask().disabled).toBe(false);
    expect(view.container.querySelector('[data-testid="no-task-reason"]')).toBeNull();
  });
});
