import { describe, expect, it } from 'vitest';
import type { ClientRuleId } from './client-catalogue';
import type { SeenMessage } from './client-evidence';
import { judgeClient, type ClientCard } from './client-judge';

/** A client session written message by message, each at a time in ms. */
function session() {
  const messages: SeenMessage[] = [];
  let nextId = 1;
  const api = {
    messages,
    request(
      at: number,
      method: string,
      params: Record<string, unknown> = {},
      headers?: Record<string, string>,
    ) {
      const id = nextId++;
      messages.push({
        at,
        wallTime: 1_000_000 + at,
        from: 'client',
        message: { jsonrpc: '2.0', id, method, params },
        ...(headers ? { headers } : {}),
      });
      return id;
    },
    answer(at: number, id: number, result: unknown, extra: Partial<SeenMessage> = {}) {
      messages.push({
        at,
        wallTime: 1_000_000 + at,
        from: 'server',
        message: { jsonrpc: '2.0', id, result },
        ...extra,
      });
    },
    error(at: number, id: number, code: number, extra: Partial<SeenMessage> & { data?: unknown } = {}) {
      const { data, ...rest } = extra;
      messages.push({
        at,
        wallTime: 1_000_000 + at,
        from: 'server',
        message: { jsonrpc: '2.0', id, error: { code, message: 'no', ...(data ? { data } : {}) } },
        ...rest,
      });
    },
    push(at: number, params: Record<string, unknown>) {
      messages.push({
        at,
        wallTime: 1_000_000 + at,
        from: 'server',
        message: { jsonrpc: '2.0', method: 'notifications/tasks/status', params },
      });
    },
    notify(at: number, method: string, params: Record<string, unknown>) {
      messages.push({
        at,
        wallTime: 1_000_000 + at,
        from: 'client',
        message: { jsonrpc: '2.0', method, params },
      });
    },
    /** Request and answer in one step. */
    ask(at: number, method: string, params: Record<string, unknown>, result: unknown, took = 3) {
      const id = api.request(at, method, params);
      api.answer(at + took, id, result);
      return id;
    },
  };
  return api;
}

const FULL_TASKS = { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
const task = (status: string, extra: Record<string, unknown> = {}) => ({
  taskId: 't1',
  status,
  createdAt: '2026-12-07T00:00:00Z',
  lastUpdatedAt: '2026-12-07T00:00:00Z',
  ttl: 60_000,
  pollInterval: 1000,
  ...extra,
});

/** The start of a 2025-11-25 session and a task created at 100 ms. */
function started(capabilities: Record<string, unknown> = FULL_TASKS) {
  const s = session();
  s.ask(
    0,
    'initialize',
    { protocolVersion: '2025-11-25', capabilities: {} },
    { protocolVersion: '2025-11-25', capabilities },
  );
  s.ask(
    20,
    'tools/list',
    {},
    {
      tools: [
        { name: 'slow_job', inputSchema: {}, execution: { taskSupport: 'optional' } },
        { name: 'echo', inputSchema: {} },
      ],
    },
  );
  s.ask(
    100,
    'tools/call',
    { name: 'slow_job', arguments: {}, task: { ttl: 60_000 } },
    { task: task('working') },
  );
  return s;
}

const verdicts = (card: ClientCard) => Object.fromEntries(card.rules.map((r) => [r.id, r.verdict]));
const rule = (card: ClientCard, id: ClientRuleId) => card.rules.find((r) => r.id === id);
const problems = (card: ClientCard) =>
  card.rules.filter((r) => r.verdict === 'fail' || r.verdict === 'warn').map((r) => r.id);

describe('the client card, 2025-11-25', () => {
  it('passes a client that polls first at once, then at the pollInterval, stops at completed and fetches at once', () => {
    const s = started();
    // The SDK client polls before it sleeps: the first poll after the create answer is not judged.
    s.ask(107, 'tasks/get', { taskId: 't1' }, task('working'));
    s.ask(1110, 'tasks/get', { taskId: 't1' }, task('working'));
    s.push(1500, task('completed'));
    // A poll after a terminal push is never a fault, nor one sooner than the push (pushes do not restart the clock).
    s.ask(2113, 'tasks/get', { taskId: 't1' }, task('completed'));
    s.ask(2120, 'tasks/result', { taskId: 't1' }, { content: [] });
    const card = judgeClient(s.messages);
    expect(card.era).toBe('2025-11-25');
    expect(problems(card)).toEqual([]);
    expect(verdicts(card)).toMatchObject({
      'client-poll-cadence': 'pass',
      'client-stops-at-terminal': 'pass',
      'client-result-fetched': 'pass',
      'client-result-promptly': 'pass',
      'client-capability-respected': 'pass',
      'client-tool-task-support': 'pass',
    });
    expect(card.rules.some((r) => r.id === 'client-mcp-name')).toBe(false);
  });

  it('warns on polls faster than asked, counted from the answer before, and names the first', () => {
    const s = started();
    s.ask(110, 'tasks/get', { taskId: 't1' }, task('working'));
    s.ask(1100, 'tasks/get', { taskId: 't1' }, task('working'));
    s.ask(1300, 'tasks/get', { taskId: 't1' }, task('working'));
    s.ask(1400, 'tasks/get', { taskId: 't1' }, task('working'));
    const card = judgeClient(s.messages);
    const cadence = rule(card, 'client-poll-cadence');
    expect(cadence).toMatchObject({ verdict: 'warn', observations: 3 });
    expect(cadence?.firstOffence).toMatchObject({ taskId: 't1', at: 1_001_300 });
    expect(cadence?.firstOffence?.detail).toMatch(/197 ms after an answer that asked for 1000 ms/);
  });

  it('warns on a poll after a terminal answer, fails asking again after -32602, and on a result lost to the ttl', () => {
    const s = started();
    s.ask(1200, 'tasks/get', { taskId: 't1' }, task('completed', { ttl: 2000 }));
    s.ask(2300, 'tasks/get', { taskId: 't1' }, task('completed', { ttl: 2000 }));
    const gone = s.request(3400, 'tasks/get', { taskId: 't1' });
    s.error(3403, gone, -32602);
    s.request(4500, 'tasks/get', { taskId: 't1' });
    const card = judgeClient(s.messages);
    expect(verdicts(card)).toMatchObject({
      'client-stops-at-terminal': 'warn',
      'client-discards-unknown-task': 'fail',
      'client-result-fetched': 'warn',
      'client-result-promptly': 'warn',
    });
    expect(rule(card, 'client-stops-at-terminal')?.firstOffence?.at).toBe(1_002_300);
    expect(rule(card, 'client-discards-unknown-task')?.firstOffence?.detail).toMatch(/after -32602/);
  });

  it('fails a lost result on a receiver that follows the user documents, and an early tasks/result it refused', () => {
    const s = started();
    const early = s.request(150, 'tasks/result', { taskId: 't1' });
    s.error(153, early, -32602);
    s.ask(1200, 'tasks/get', { taskId: 't1' }, { task: task('completed', { ttl: 1000 }) });
    s.ask(2500, 'tools/list', {}, { tools: [] });
    const card = judgeClient(s.messages);
    expect(card.documentsFlavour).toBe(true);
    expect(verdicts(card)).toMatchObject({
      'client-result-after-terminal': 'fail',
      'client-result-fetched': 'fail',
    });
  });

  it('does not count an early tasks/result the receiver held until the end (the spec blocks)', () => {
    const s = started();
    const held = s.request(150, 'tasks/result', { taskId: 't1' });
    s.ask(1200, 'tasks/get', { taskId: 't1' }, task('completed'));
    s.answer(1201, held, { content: [] });
    const card = judgeClient(s.messages);
    expect(verdicts(card)).toMatchObject({
      'client-result-after-terminal': 'pass',
      'client-result-promptly': 'pass',
    });
  });

  it('warns on a request sooner than Retry-After, from the header or the error', () => {
    const s = started();
    const limited = s.request(1200, 'tasks/get', { taskId: 't1' });
    s.error(1203, limited, -32429, { responseHeaders: { 'Retry-After': '2' }, wallTime: 1_001_203 });
    s.ask(1700, 'tasks/get', { taskId: 't1' }, task('working'));
    const card = judgeClient(s.messages);
    expect(rule(card, 'client-retry-after')).toMatchObject({ verdict: 'warn' });
    expect(rule(card, 'client-retry-after')?.firstOffence?.detail).toMatch(/asked for 2000 ms/);

    const polite = started();
    const again = polite.request(1200, 'tasks/get', { taskId: 't1' });
    polite.error(1203, again, -32429, { data: { retryAfterMs: 300 } });
    polite.ask(1600, 'tasks/get', { taskId: 't1' }, task('working'));
    expect(rule(judgeClient(polite.messages), 'client-retry-after')).toMatchObject({ verdict: 'pass' });
  });

  it('fails task requests the receiver did not declare and calls against a tool’s taskSupport', () => {
    const s = started({ tasks: { list: {} } });
    s.ask(200, 'tools/call', { name: 'echo', arguments: {}, task: {} }, { content: [] });
    s.ask(300, 'tasks/cancel', { taskId: 't1' }, task('cancelled'));
    const card = judgeClient(s.messages);
    expect(verdicts(card)).toMatchObject({
      'client-capability-respected': 'fail',
      'client-tool-task-support': 'fail',
    });
    expect(rule(card, 'client-capability-respected')?.firstOffence?.detail).toMatch(
      /tasks\.requests\.tools\.call/,
    );
  });

  it('leaves the capability rule unobserved when the session began before the proxy saw it', () => {
    const s = session();
    s.ask(0, 'tasks/get', { taskId: 't1' }, task('working'));
    expect(rule(judgeClient(s.messages), 'client-capability-respected')?.verdict).toBe('unobserved');
  });

  it('warns when input_required is not followed by tasks/result within one pollInterval', () => {
    const s = started();
    s.ask(1100, 'tasks/get', { taskId: 't1' }, task('input_required'));
    s.ask(2200, 'tasks/get', { taskId: 't1' }, task('input_required'));
    s.ask(3300, 'tasks/get', { taskId: 't1' }, task('input_required'));
    expect(rule(judgeClient(s.messages), 'client-input-required-result')?.verdict).toBe('warn');

    const good = started();
    good.ask(1100, 'tasks/get', { taskId: 't1' }, task('input_required'));
    good.ask(1104, 'tasks/result', { taskId: 't1' }, { content: [] }, 2000);
    good.ask(2200, 'tasks/get', { taskId: 't1' }, task('working'));
    expect(rule(judgeClient(good.messages), 'client-input-required-result')?.verdict).toBe('pass');
  });

  it('never throws on what a peer sends', () => {
    const s = session();
    s.messages.push(
      { at: 1, wallTime: 1, from: 'client', message: null },
      { at: 2, wallTime: 2, from: 'client', message: [1, 2] },
      { at: 3, wallTime: 3, from: 'client', message: { id: {}, method: 5 } },
      { at: 4, wallTime: 4, from: 'server', message: { id: 1, result: 'x' } },
    );
    s.ask(5, 'tasks/get', { taskId: 7 }, { task: 'no' });
    s.ask(6, 'tasks/get', { taskId: 't' }, { status: 'weird', pollInterval: -1, ttl: 'x' });
    const card = judgeClient(s.messages);
    expect(card.rules.every((r) => r.verdict !== 'fail' && !r.reason.startsWith('Could not'))).toBe(true);
  });
});

describe('the client card, 2026-07-28', () => {
  const META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
  };
  const headersFor = (method: string, name?: string) => ({
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(name !== undefined ? { 'mcp-name': name } : {}),
  });
  const task26 = (status: string, extra: Record<string, unknown> = {}) => ({
    resultType: 'task',
    taskId: 't1',
    status,
    ttlMs: 60_000,
    pollIntervalMs: 1000,
    ...extra,
  });

  function started26() {
    const s = session();
    const call = s.request(
      0,
      'tools/call',
      { name: 'slow_job', arguments: {}, _meta: META },
      headersFor('tools/call', 'slow_job'),
    );
    s.answer(5, call, task26('working'));
    return { s, call };
  }

  it('passes a client that names every request and reads the result from the tasks/get that sees completed', () => {
    const { s } = started26();
    const get = (at: number, status: string, extra: Record<string, unknown> = {}) => {
      const id = s.request(at, 'tasks/get', { taskId: 't1', _meta: META }, headersFor('tasks/get', 't1'));
      s.answer(at + 3, id, task26(status, extra));
    };
    get(10, 'working');
    get(1020, 'input_required', { inputRequests: { q1: { method: 'elicitation/create', params: {} } } });
    const update = s.request(
      1030,
      'tasks/update',
      { taskId: 't1', inputResponses: { q1: { action: 'accept' } }, _meta: META },
      headersFor('tasks/update', 't1'),
    );
    s.answer(1033, update, {});
    get(2030, 'completed', { result: { content: [] } });
    const card = judgeClient(s.messages);
    expect(card.era).toBe('2026-07-28');
    expect(problems(card)).toEqual([]);
    expect(verdicts(card)).toMatchObject({
      'client-mcp-name': 'pass',
      'client-mcp-method': 'pass',
      'client-protocol-version': 'pass',
      'client-extension-declared': 'pass',
      'client-result-fetched': 'pass',
      'client-input-answered-once': 'pass',
    });
    expect(card.rules.some((r) => r.id === 'client-capability-respected')).toBe(false);
  });

  it('fails missing or wrong routing headers, 2025 methods and a missing envelope; informs on a task parameter', () => {
    const { s, call } = started26();
    const noName = s.request(1010, 'tasks/get', { taskId: 't1', _meta: META }, headersFor('tasks/get'));
    s.answer(1013, noName, task26('working'));
    // The base64 form names the task: right.
    const encoded = s.request(
      2020,
      'tasks/get',
      { taskId: 't1', _meta: META },
      headersFor('tasks/get', '=?base64?dDE=?='),
    );
    s.answer(2023, encoded, task26('working'));
    s.request(3030, 'tasks/get', { taskId: 't1', _meta: META }, headersFor('tasks/cancel', 't2'));
    s.request(3100, 'tasks/result', { taskId: 't1' }, { 'mcp-method': 'tasks/result', 'mcp-name': 't1' });
    s.notify(3200, 'notifications/cancelled', { requestId: call });
    s.request(
      3300,
      'tools/call',
      { name: 'slow_job', task: {}, _meta: META },
      headersFor('tools/call', 'slow_job'),
    );
    const card = judgeClient(s.messages);
    expect(verdicts(card)).toMatchObject({
      'client-mcp-name': 'fail',
      'client-mcp-method': 'fail',
      'client-protocol-version': 'fail',
      'client-no-2025-task-methods': 'fail',
      'client-extension-declared': 'pass',
      'client-task-param-ignored': 'info',
    });
    expect(rule(card, 'client-mcp-name')?.firstOffence?.at).toBe(1_001_010);
    expect(rule(card, 'client-protocol-version')?.firstOffence?.detail).toMatch(
      /MCP-Protocol-Version header/,
    );
  });

  it('fails task requests without the extension and warns on an input answered again after its ack', () => {
    const { s } = started26();
    const bare = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    s.request(1010, 'tasks/get', { taskId: 't1', _meta: bare }, headersFor('tasks/get', 't1'));
    const first = s.request(
      1100,
      'tasks/update',
      { taskId: 't1', inputResponses: { q1: {} }, _meta: META },
      headersFor('tasks/update', 't1'),
    );
    s.answer(1103, first, {});
    s.request(
      2100,
      'tasks/update',
      { taskId: 't1', inputResponses: { q1: {} }, _meta: META },
      headersFor('tasks/update', 't1'),
    );
    const card = judgeClient(s.messages);
    expect(verdicts(card)).toMatchObject({
      'client-extension-declared': 'fail',
      'client-input-answered-once': 'warn',
    });
  });
});

describe('two clients judged together', () => {
  it('pair each answer with the request its exchange carried, though both count their ids from 1', () => {
    const messages: SeenMessage[] = [];
    const send = (at: number, exchange: number, id: number, method: string, params: object) =>
      messages.push({
        at,
        wallTime: at,
        from: 'client',
        exchange,
        message: { jsonrpc: '2.0', id, method, params },
      });
    const answer = (at: number, exchange: number, id: number, result: object) =>
      messages.push({ at, wallTime: at, from: 'server', exchange, message: { jsonrpc: '2.0', id, result } });
    const task = (taskId: string, status: string) => ({ taskId, status, pollInterval: 1000, ttl: 60_000 });
    // Both send id 1 at once; A's task has completed, B's works on. B then polls at its interval.
    send(0, 1, 1, 'tasks/get', { taskId: 'a' });
    send(1, 2, 1, 'tasks/get', { taskId: 'b' });
    answer(2, 1, 1, task('a', 'completed'));
    answer(3, 2, 1, task('b', 'working'));
    send(1010, 3, 2, 'tasks/get', { taskId: 'b' });
    answer(1012, 3, 2, task('b', 'working'));
    const card = judgeClient(messages);
    expect(card.rules.find((r) => r.id === 'client-stops-at-terminal')?.verdict).not.toBe('warn');
    expect(card.rules.find((r) => r.id === 'client-poll-cadence')?.verdict).toBe('pass');
  });
});
