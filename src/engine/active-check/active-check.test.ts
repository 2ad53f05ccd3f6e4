import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolInfo } from '../../mcp';
import { ActiveCheck, checkableTools, type CheckTarget } from './active-check';
import { pagedTools } from './runner';

const tool = (name: string, taskSupport: ToolInfo['taskSupport'], inputSchema: Record<string, unknown>) => ({
  name,
  taskSupport,
  inputSchema,
});

describe('the tools the active check may run', () => {
  it('takes task-capable tools whose required arguments all have defaults, and sends only those', () => {
    const tools: ToolInfo[] = [
      tool('plain', 'forbidden', { type: 'object' }),
      tool('needs_text', 'required', {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
      }),
      tool('defaults', 'optional', {
        type: 'object',
        properties: { n: { type: 'number', default: 3 }, extra: { type: 'string' } },
        required: ['n'],
      }),
      tool('bare', 'receiver', { type: 'object' }),
      tool('odd_required', 'required', { type: 'object', required: 'n' }),
    ];
    // Those that declare a task first; the receiver's choice (any 2026-07-28 tool) after them.
    expect(checkableTools(tools)).toEqual([
      { tool: tools[2], args: { n: 3 } },
      { tool: tools[4], args: {} },
      { tool: tools[3], args: {} },
    ]);
  });
});

/** A JSON-RPC error as the session throws it (the SDK's McpError carries `code`). */
const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });

interface WireTask {
  /** When a working task completes on its own (fake time). */
  endsAt: number;
  taskId: string;
  status: string;
  ttl: number | null;
  createdAt: string;
  lastUpdatedAt: string;
  pollInterval: number;
}

/**
 * A 2025-11-25 receiver scripted for the check's logic under fake time: raw wire answers, the check's own
 * normalising. `forcedTtl` is server-everything's habit (every ttl 300 s); `acceptsTerminalCancel` a fault.
 */
function scripted(
  options: {
    forcedTtl?: number;
    acceptsTerminalCancel?: boolean;
    /** Deletes a task as soon as it is cancelled (2025-11-25 allows it). */
    deletesOnCancel?: boolean;
    onRequest?: (method: string) => void;
    /** How a plain call of the task-required tool is answered: an error code, or an isError result. */
    plainCall?: number | 'isError';
    /** An ended task reads working again 1 s after its end (a fault). */
    reopens?: boolean;
  } = {},
) {
  const listToolsOptions: Array<{ timeoutMs: number; signal: AbortSignal }> = [];
  const tasks = new Map<string, WireTask>();
  const calls: string[] = [];
  let next = 0;
  const target: CheckTarget = {
    era: '2025-11-25',
    support: { list: true, cancel: true, toolCall: true },
    listTools: (listOptions) => {
      listToolsOptions.push(listOptions);
      return Promise.resolve([tool('work', 'required', { type: 'object' })]);
    },
    request: (method, params, { signal }) => {
      calls.push(method);
      options.onRequest?.(method);
      const taskId = typeof params.taskId === 'string' ? params.taskId : '';
      const task = tasks.get(taskId);
      const now = new Date().toISOString();
      for (const t of tasks.values()) {
        if (t.status === 'working' && Date.now() >= t.endsAt) t.status = 'completed';
        if (options.reopens && t.status === 'completed' && Date.now() >= t.endsAt + 1_000)
          t.status = 'working';
      }
      switch (method) {
        case 'tools/call': {
          if (params.task === undefined)
            return options.plainCall === 'isError'
              ? Promise.resolve({ content: [{ type: 'text', text: 'MCP error -32601' }], isError: true })
              : Promise.reject(rpcError(options.plainCall ?? -32601, 'work runs as a task only'));
          const asked = (params.task as { ttl?: number }).ttl;
          const created: WireTask = {
            endsAt: Date.now() + 5_000,
            taskId: `t${++next}`,
            status: 'working',
            ttl: options.forcedTtl ?? asked ?? 60_000,
            createdAt: now,
            lastUpdatedAt: now,
            pollInterval: 1000,
          };
          tasks.set(created.taskId, created);
          return Promise.resolve({ task: wireOf(created) });
        }
        case 'tasks/get':
          return task ? Promise.resolve(wireOf(task)) : Promise.reject(rpcError(-32602, 'no such task'));
        case 'tasks/result':
          // Blocks while the task runs, as 2025-11-25 asks.
          return new Promise((_, reject) => {
            const abort = () => reject(new DOMException('aborted', 'AbortError'));
            if (signal.aborted) abort();
            else signal.addEventListener('abort', abort);
          });
        case 'tasks/cancel':
          if (!task) return Promise.reject(rpcError(-32602, 'no such task'));
          if (task.status !== 'working' && !options.acceptsTerminalCancel)
            return Promise.reject(rpcError(-32602, 'already ended'));
          task.status = 'cancelled';
          if (options.deletesOnCancel) tasks.delete(taskId);
          return Promise.resolve(wireOf(task));
        case 'tasks/list':
          return params.cursor
            ? Promise.reject(rpcError(-32602, 'bad cursor'))
            : Promise.resolve({ tasks: [...tasks.values()].map(wireOf) });
        default:
          return Promise.reject(rpcError(-32601, 'Method not found'));
      }
    },
  };
  return { target, calls, listToolsOptions };
}

const wireOf = ({ endsAt: _, ...wire }: WireTask) => wire;

async function runUnderFakeTime(check: ActiveCheck) {
  const done = check.run();
  await vi.runAllTimersAsync();
  return done;
}

describe('the active check, step by step', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('does not wait for an expiry past 10 s (server-everything’s 300 s), and says so', async () => {
    const { target } = scripted({ forcedTtl: 300_000 });
    const started = Date.now();
    const state = await runUnderFakeTime(new ActiveCheck(target));
    const step = state.steps.find((s) => s.id === 'short-ttl');
    expect(step).toMatchObject({
      state: 'done',
      note: expect.stringMatching(/ttl 300 s: expiry not waited for/),
    });
    expect(state.findings.find((f) => f.id === 'requested-ttl-honoured')?.reason).toMatch(
      /adjusted to 300000 ms and said in the answer/,
    );
    // Nothing waited anywhere near the ttl: the whole check took seconds of (fake) time, its tasks' runs and
    // the wait before reading them again after their end.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(state.findings.filter((f) => f.verdict === 'fail')).toEqual([]);
  });

  it('fails a receiver that accepts tasks/cancel on an ended task, and only that rule', async () => {
    const { target } = scripted({ acceptsTerminalCancel: true });
    const state = await runUnderFakeTime(new ActiveCheck(target));
    const fails = state.findings.filter((f) => f.verdict === 'fail');
    expect(fails.map((f) => f.id)).toEqual(['terminal-cancel-refused']);
    // The shared task (t1) still runs then: the one cancel-live cancelled (t2) is the ended task asked about.
    expect(fails[0]?.firstOffence).toMatchObject({ taskId: 't2', detail: expect.stringMatching(/accepted/) });
  });

  it.each([
    [-32601, 'pass'],
    [-32600, 'pass'],
    ['isError' as const, 'fail'],
  ])('a plain call of a task-required tool answered %s: tool-task-support %s', async (plainCall, verdict) => {
    const { target } = scripted({ plainCall });
    const state = await runUnderFakeTime(new ActiveCheck(target));
    const finding = state.findings.find((f) => f.id === 'tool-task-support');
    expect(finding?.verdict).toBe(verdict);
    if (verdict === 'fail') expect(finding?.reason).toMatch(/isError result instead of a JSON-RPC -32601/);
    // No tool here forbids tasks: that probe's rule reads not judged, with the reason.
    expect(state.findings.find((f) => f.id === 'capability-absent-error')).toMatchObject({
      verdict: 'unobserved',
      reason: 'Not judged: no tool here forbids tasks',
    });
  });

  it('reads its tasks again after their end, and fails an ended task that reads working again', async () => {
    const healthy = await runUnderFakeTime(new ActiveCheck(scripted().target));
    expect(healthy.steps.find((s) => s.id === 'read-after-end')).toMatchObject({
      state: 'done',
      note: expect.stringMatching(/kept their status \(tasks\/list\)/),
    });
    expect(healthy.findings.find((f) => f.id === 'status-transitions')?.verdict).toBe('pass');

    const state = await runUnderFakeTime(new ActiveCheck(scripted({ reopens: true }).target));
    const finding = state.findings.find((f) => f.id === 'status-transitions');
    expect(finding).toMatchObject({
      verdict: 'fail',
      firstOffence: { detail: 'completed → working (tasks/list, after the end)' },
    });
  });

  it('asks tools/list with the deadline and the stop signal of every other request', async () => {
    const { target, listToolsOptions } = scripted();
    const check = new ActiveCheck(target);
    await runUnderFakeTime(check);
    expect(listToolsOptions).toHaveLength(1);
    expect(listToolsOptions[0]?.timeoutMs).toBe(10_000);
    expect(listToolsOptions[0]?.signal).toBe(check.signal);
  });

  it('gives each tools/list page a signal of its own that follows the stop, and leaves none on the check', async () => {
    const stop = new AbortController();
    let listening = 0;
    const add = stop.signal.addEventListener.bind(stop.signal);
    const remove = stop.signal.removeEventListener.bind(stop.signal);
    vi.spyOn(stop.signal, 'addEventListener').mockImplementation((...args) => {
      listening++;
      add(...args);
    });
    vi.spyOn(stop.signal, 'removeEventListener').mockImplementation((...args) => {
      listening--;
      remove(...args);
    });
    const pages: Array<{ params: Record<string, unknown>; timeoutMs: number; signal: AbortSignal }> = [];
    const tools = await pagedTools(
      (_method, params, options) => {
        pages.push({ params, ...options });
        return Promise.resolve(
          params.cursor === undefined
            ? { tools: [tool('a', 'optional', {})], nextCursor: 'p2' }
            : { tools: [tool('b', 'optional', {})] },
        );
      },
      '2025-11-25',
      { timeoutMs: 10_000, signal: stop.signal },
    );
    expect(tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(pages.map((p) => [p.params.cursor, p.timeoutMs])).toEqual([
      [undefined, 10_000],
      ['p2', 10_000],
    ]);
    expect(pages.every((p) => p.signal !== stop.signal)).toBe(true);
    expect(pages[0]?.signal).not.toBe(pages[1]?.signal);
    expect(listening).toBe(0);

    // Stop while a page is in flight: that page's own signal is aborted.
    let inFlight: AbortSignal | undefined;
    const stalled = pagedTools(
      (_method, _params, options) => {
        inFlight = options.signal;
        return new Promise((_resolve, reject) =>
          options.signal.addEventListener('abort', () => reject(new Error('aborted'))),
        );
      },
      '2025-11-25',
      { timeoutMs: 10_000, signal: stop.signal },
    );
    stop.abort();
    await expect(stalled).rejects.toThrow('aborted');
    expect(inFlight?.aborted).toBe(true);
    expect(listening).toBe(0);
  });

  it('does not judge a task deleted right after its cancel as purged early (receivers may delete it)', async () => {
    const { target } = scripted({ deletesOnCancel: true });
    const state = await runUnderFakeTime(new ActiveCheck(target));
    expect(state.findings.find((f) => f.id === 'ttl-not-purged-early')).toBeUndefined();
    expect(state.findings.filter((f) => f.verdict === 'fail')).toEqual([]);
    expect(state.findings.find((f) => f.id === 'capability-tasks-cancel')?.reason).toMatch(/gone/);
  });

  it('stops itself at its overall limit, says so, and cancels what it started', async () => {
    const { target, calls } = scripted();
    const state = await runUnderFakeTime(new ActiveCheck(target, { timing: { overallMs: 1_000 } }));
    expect(state.stopped).toBe(true);
    expect(state.steps.find((s) => s.state === 'stopped')?.note).toMatch(/overall limit of 1 s/);
    expect(calls.at(-1)).toBe('tasks/cancel');
  });

  it('stops when asked, mid-step, and cancels the running task it started', async () => {
    // Stopped while tasks/result is held open on the task it started.
    const { target, calls } = scripted({ onRequest: (method) => method === 'tasks/result' && check.stop() });
    const check: ActiveCheck = new ActiveCheck(target);
    const state = await runUnderFakeTime(check);
    expect(state.stopped).toBe(true);
    expect(state.steps.map((s) => s.state)).toEqual([
      'done',
      'done',
      // No tool here forbids tasks.
      'skipped',
      'stopped',
      'stopped',
      'stopped',
      'stopped',
      'stopped',
      'stopped',
      'stopped',
    ]);
    expect(calls.slice(-2)).toEqual(['tasks/result', 'tasks/cancel']);
  });
});
