// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ServerTaskSupport, ToolInfo } from '../mcp';
import { useConnection } from '../state/connection-store';
import { draftFromCall, useRunDrafts } from './run-drafts-store';
import { callToolPlain, runToolAsTask } from './run-actions';
import { RunToolForm } from './RunToolForm';
import { reactRoot } from '../../test/helpers/react-root';

// The form's submit goes to the engine: here it is only seen what the form sends.
vi.mock('./run-actions', () => ({
  runToolAsTask: vi.fn(() => Promise.resolve({ ok: true, taskId: 'new-task' })),
  callToolPlain: vi.fn(() => Promise.resolve({ ok: false, error: { kind: 'network', message: 'no' } })),
}));

const view = reactRoot();
const URL_ = 'http://127.0.0.1:1/mcp';
const support: ServerTaskSupport = { list: true, cancel: true, toolCall: true };

const slowJob: ToolInfo = {
  name: 'slow_job',
  description: 'Works in steps',
  taskSupport: 'optional',
  inputSchema: {
    type: 'object',
    properties: {
      durationMs: { type: 'integer', default: 5000 },
      steps: { type: 'integer', default: 5 },
      pollIntervalMs: { type: 'integer', default: 1000 },
      label: { type: 'string', default: 'job' },
    },
  },
};
const flakyJob: ToolInfo = {
  name: 'flaky_job',
  taskSupport: 'required',
  inputSchema: {
    type: 'object',
    properties: { reason: { type: 'string', default: 'upstream dependency timed out' } },
  },
};
const echo: ToolInfo = {
  name: 'echo',
  taskSupport: 'forbidden',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
};

beforeEach(() => {
  useConnection.setState({ id: 1, url: URL_, status: 'connected', support });
  useRunDrafts.setState({ drafts: {} });
  vi.mocked(runToolAsTask).mockClear();
});

const open = (tool: ToolInfo) =>
  act(() => view.root.render(<RunToolForm key={tool.name} tool={tool} support={support} />));
const close = () => act(() => view.root.render(<></>));
const input = (id: string) => view.container.querySelector<HTMLInputElement>(`#${id}`);
const note = () => view.container.querySelector('[data-testid="run-again-note"]');
const button = (name: string) =>
  [...view.container.querySelectorAll('button')].find((b) => b.textContent?.includes(name))!;

/** Types into a controlled input as a person does (React listens for the native input event). */
function type(element: HTMLInputElement, value: string) {
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
  act(() => {
    setter.call(element, value);
    element.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

describe('the run form', () => {
  it('Run again fills it with the call’s arguments and ttl, and says which task they came from', () => {
    draftFromCall(URL_, 'task-7', {
      tool: 'slow_job',
      args: { durationMs: 700, steps: 1, label: 'first run' },
      ttl: 45_000,
    });
    open(slowJob);
    expect(note()?.textContent).toContain('task-7');
    expect(note()?.textContent).not.toContain('Left out');
    expect(input('arg-label')?.value).toBe('first run');
    expect(input('arg-durationMs')?.value).toBe('700');
    expect(input('arg-steps')?.value).toBe('1');
    expect(input('task-ttl')?.value).toBe('45000');
  });

  it('Run again names, as text, the arguments no field holds: the first ten and how many more', () => {
    const hostile = '<img src=x onerror="window.__injected=1">';
    const extras = [
      hostile,
      ...Array.from({ length: 11 }, (_, i) => `extra_${String(i + 1).padStart(2, '0')}`),
    ];
    const args: Record<string, unknown> = { durationMs: 300, steps: 1, pollIntervalMs: 200, label: 'resent' };
    for (const name of extras) args[name] = true;
    open(slowJob);
    const fieldCount = view.container.querySelectorAll('[id^="arg-"]').length;
    close();

    draftFromCall(URL_, 'resent-task', { tool: 'slow_job', args, ttl: 30_000 });
    open(slowJob);
    const shown = extras.slice(0, 10).map((name) => JSON.stringify(name));
    expect(note()?.textContent).toContain('resent-task');
    expect(note()?.textContent).toContain(
      `Left out, as no field of this form holds them: ${shown.join(', ')} and 2 more.`,
    );
    expect(note()?.textContent).not.toContain('extra_10');
    expect(note()?.querySelector('img')).toBeNull();
    // No field made up for them; those that fit are in theirs.
    expect(view.container.querySelectorAll('[id^="arg-"]')).toHaveLength(fieldCount);
    expect(input('arg-label')?.value).toBe('resent');
    expect(input('arg-pollIntervalMs')?.value).toBe('200');
  });

  it('keeps what was typed when it is closed and opened again; another tool’s form is its own; it sends what it shows', async () => {
    draftFromCall(URL_, 'task-7', { tool: 'slow_job', args: { label: 'first run' }, ttl: 45_000 });
    open(slowJob);
    type(input('arg-label')!, 'typed, not sent');
    type(input('task-ttl')!, '50000');
    close();
    open(slowJob);
    expect(input('arg-label')?.value).toBe('typed, not sent');
    expect(input('task-ttl')?.value).toBe('50000');
    close();
    open(flakyJob);
    expect(input('arg-reason')?.value).toBe('upstream dependency timed out');
    close();

    open(slowJob);
    await act(async () => button('Run as task').click());
    expect(runToolAsTask).toHaveBeenCalledWith(
      slowJob,
      expect.objectContaining({ label: 'typed, not sent' }),
      50_000,
    );
  });

  it('Call without task shows the answer inline, in the form', async () => {
    vi.mocked(callToolPlain).mockResolvedValueOnce({
      ok: true,
      answer: {
        value: {
          result: { content: [{ type: 'text', text: 'Summary: 12 words' }] },
          isError: false,
          shape: 'plain',
        },
        warnings: [],
      },
    });
    open(slowJob);
    await act(async () => button('Call without task').click());
    expect(callToolPlain).toHaveBeenCalledWith(slowJob, expect.objectContaining({ label: 'job' }));
    await vi.waitFor(() =>
      expect(view.container.querySelector('[data-testid="result"]')?.textContent).toContain(
        'Summary: 12 words',
      ),
    );
  });

  it('a forbidden tool’s form has no ttl field and says why it cannot run as a task', () => {
    open(echo);
    expect(view.container.querySelector('[data-testid="no-task-reason"]')?.textContent).toContain(
      'taskSupport: forbidden',
    );
    expect(input('task-ttl')).toBeNull();
    expect(button('Run as task').disabled).toBe(true);
    expect(button('Call without task').disabled).toBe(false);
  });
});
