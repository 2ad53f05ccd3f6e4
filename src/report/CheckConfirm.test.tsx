// @vitest-environment jsdom
import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolInfo } from '../mcp';
import { useConnection } from '../state/connection-store';
import { runToolAsTask } from '../tools/run-actions';
import { useRunDrafts } from '../tools/run-drafts-store';
import { reactRoot } from '../../test/helpers/react-root';
import { CheckConfirm } from './CheckConfirm';
import { useReport } from './report-store';

/**
 * The check's confirmation: which tools it offers, the arguments each starts from (its last run here, else the
 * defaults the check would send), and what reaches the engine when the person runs it.
 */
const engine = vi.hoisted(() => ({ requests: [] as Array<Record<string, unknown>> }));
vi.mock('../bridge/engine-bridge', () => ({
  getEngine: () => ({
    request: (command: Record<string, unknown>) => {
      engine.requests.push(command);
      return Promise.resolve(
        command.type === 'run' ? { ok: true, taskId: 'task-1' } : { ok: false, reason: 'not here' },
      );
    },
  }),
}));
const receiver = vi.hoisted(() => ({ tools: [] as ToolInfo[] }));
vi.mock('./hooks', () => ({ useReceiverTools: () => receiver.tools }));

const URL_ = 'http://127.0.0.1:1/mcp';
/** Runs as a task with defaults only: the check could always run it. */
const job: ToolInfo = {
  name: 'job',
  taskSupport: 'optional',
  inputSchema: {
    type: 'object',
    properties: { durationMs: { type: 'integer', default: 600 } },
    required: ['durationMs'],
  },
};
/** server-everything's task tool: its topic has no default, so the check could never run it before. */
const research: ToolInfo = {
  name: 'simulate-research-query',
  taskSupport: 'required',
  inputSchema: {
    type: 'object',
    properties: { topic: { type: 'string' }, ambiguous: { type: 'boolean', default: false } },
    required: ['topic'],
  },
};
const echo: ToolInfo = {
  name: 'echo',
  taskSupport: 'forbidden',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
};

const view = reactRoot();
beforeEach(() => {
  engine.requests.length = 0;
  receiver.tools = [echo, research, job];
  useConnection.setState({
    id: 1,
    url: URL_,
    status: 'connected',
    support: { list: true, cancel: true, toolCall: true },
  });
  useRunDrafts.setState({ drafts: {}, lastArgs: {} });
  useReport.setState({ check: undefined, checkError: undefined });
  // jsdom has no modal dialogs: open and close set the attribute, as the browser's do.
  HTMLDialogElement.prototype.showModal ??= function (this: HTMLDialogElement) {
    this.setAttribute('open', '');
  };
  HTMLDialogElement.prototype.close ??= function (this: HTMLDialogElement) {
    this.removeAttribute('open');
  };
});

const onClose = vi.fn();
const open = () => act(() => view.root.render(<CheckConfirm url={URL_} onClose={onClose} />));
const $ = <T extends HTMLElement>(testId: string) =>
  view.container.querySelector<T>(`[data-testid="${testId}"]`);
const field = () => $<HTMLTextAreaElement>('check-args')!;
const runButton = () => $<HTMLButtonElement>('confirm-check')!;
const toolOptions = () => [...$<HTMLSelectElement>('check-tool')!.options].map((o) => o.value);

/** Types into or picks in a controlled field as a person does (React listens for the native events). */
function type(text: string) {
  const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!;
  act(() => {
    setter.call(field(), text);
    field().dispatchEvent(new Event('input', { bubbles: true }));
  });
}
function pick(tool: string) {
  const select = $<HTMLSelectElement>('check-tool')!;
  act(() => {
    select.value = tool;
    select.dispatchEvent(new Event('change', { bubbles: true }));
  });
}
const checkRequest = () => engine.requests.find((r) => r.type === 'checkReceiver');

describe('the check confirmation', () => {
  it('offers every tool that may run as a task, each filled with the defaults the check would send', () => {
    open();
    // One it can fill from defaults first, then those that need the person's arguments; never a forbidden one.
    expect(toolOptions()).toEqual(['job', 'simulate-research-query']);
    expect(JSON.parse(field().value)).toEqual({ durationMs: 600 });
    expect($('check-args-source')?.textContent).toContain("the tool's defaults");
    expect($('check-args-missing')).toBeNull();
    pick('simulate-research-query');
    expect(JSON.parse(field().value)).toEqual({});
    expect($('check-args-missing')?.textContent).toContain('"topic"');
    // Said, not refused: the person may know better than the schema.
    expect(runButton().disabled).toBe(false);
  });

  it('fills a tool with the arguments of its last run here, and the check sends what the field holds', async () => {
    await runToolAsTask(research, { topic: 'tides' });
    open();
    pick('simulate-research-query');
    expect(JSON.parse(field().value)).toEqual({ topic: 'tides' });
    expect($('check-args-source')?.textContent).toContain('last run');
    expect($('check-args-missing')).toBeNull();
    type('{"topic": "tides", "ambiguous": true}');
    act(() => runButton().click());
    expect(onClose).toHaveBeenCalled();
    expect(checkRequest()).toEqual({
      type: 'checkReceiver',
      tool: 'simulate-research-query',
      args: { topic: 'tides', ambiguous: true },
    });
  });

  it('the defaults go as arguments when left alone; another receiver’s last run is not this one’s', async () => {
    useConnection.setState({ url: 'http://127.0.0.1:2/mcp' });
    await runToolAsTask(job, { durationMs: 3000 });
    useConnection.setState({ url: URL_ });
    open();
    expect(JSON.parse(field().value)).toEqual({ durationMs: 600 });
    act(() => runButton().click());
    expect(checkRequest()).toEqual({ type: 'checkReceiver', tool: 'job', args: { durationMs: 600 } });
  });

  it('arguments that are not JSON, or not an object, keep Run disabled and say why beside the field', () => {
    open();
    type('{"durationMs": ');
    expect(runButton().disabled).toBe(true);
    expect($('check-args-error')?.textContent).toMatch(/^Not JSON/);
    expect(field().getAttribute('aria-invalid')).toBe('true');
    type('[3000]');
    expect(runButton().disabled).toBe(true);
    expect($('check-args-error')?.textContent).toContain('must be a JSON object');
    act(() => runButton().click());
    expect(checkRequest()).toBeUndefined();
    // What was typed for one tool stays with it while another is looked at.
    pick('simulate-research-query');
    expect(runButton().disabled).toBe(false);
    pick('job');
    expect(field().value).toBe('[3000]');
    type('{"durationMs": 3000}');
    expect(runButton().disabled).toBe(false);
    expect($('check-args-error')).toBeNull();
  });

  it('a tool named after an object’s own keys is a tool like any other', () => {
    const odd: ToolInfo = {
      name: '__proto__',
      taskSupport: 'optional',
      inputSchema: { type: 'object', required: ['constructor'] },
    };
    receiver.tools = [odd];
    open();
    expect(JSON.parse(field().value)).toEqual({});
    expect($('check-args-missing')?.textContent).toContain('"constructor"');
    type('{"constructor": 1}');
    expect($('check-args-missing')).toBeNull();
    act(() => runButton().click());
    expect(checkRequest()).toMatchObject({ tool: '__proto__', args: { constructor: 1 } });
  });

  it('with no tool that may run as a task, it says the check starts none and sends no arguments', () => {
    receiver.tools = [echo];
    open();
    expect($('check-tool')).toBeNull();
    expect($('check-no-tool')?.textContent).toContain('starts no task');
    act(() => runButton().click());
    expect(checkRequest()).toEqual({ type: 'checkReceiver', tool: undefined, args: undefined });
  });
});
