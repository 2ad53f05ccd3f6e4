import { describe, expect, it } from 'vitest';
import type { SeenMessage } from '../../rules/client-evidence';
import { judgeProxy, proxyJson, proxyJunit, proxyMarkdown } from './report';
import { traceFileName } from './write-report';

const facts = {
  upstream: 'http://127.0.0.1:9/mcp',
  version: '0.0.0',
  failOn: 'fail' as const,
  generatedAt: 0,
};

/** Two clients: one polls a task ten times too fast and asks again after -32602, one only lists tools. */
function traffic(): SeenMessage[] {
  const out: SeenMessage[] = [];
  let at = 0;
  const send = (sessionId: string, id: number, method: string, params: object, answer: object) => {
    out.push({
      at: (at += 10),
      wallTime: at,
      from: 'client',
      sessionId,
      message: { jsonrpc: '2.0', id, method, params },
    });
    out.push({
      at: (at += 2),
      wallTime: at,
      from: 'server',
      sessionId,
      message: { jsonrpc: '2.0', id, ...answer },
    });
  };
  const task = { taskId: 't', status: 'working', pollInterval: 1000, ttl: 60_000 };
  send(
    'A',
    1,
    'initialize',
    { clientInfo: { name: 'fast', version: '1' } },
    { result: { capabilities: { tasks: { requests: { tools: { call: {} } } } } } },
  );
  send('A', 2, 'tools/call', { name: 'x', task: {} }, { result: { task } });
  send('A', 3, 'tasks/get', { taskId: 't' }, { result: task });
  send('A', 4, 'tasks/get', { taskId: 't' }, { result: task });
  send('A', 5, 'tasks/get', { taskId: 't' }, { error: { code: -32602, message: 'gone' } });
  send('A', 6, 'tasks/get', { taskId: 't' }, { error: { code: -32602, message: 'gone' } });
  send('B', 1, 'initialize', { clientInfo: { name: 'calm' } }, { result: { capabilities: {} } });
  send('B', 2, 'tools/list', {}, { result: { tools: [] } });
  return out;
}

describe('the proxy report', () => {
  it('judges each client on its own; the run fails on a failing client rule', () => {
    const run = judgeProxy(traffic(), { failOn: 'fail' });
    expect(run).toMatchObject({ outcome: 'fail', exitCode: 1 });
    expect(run.reason).toMatch(/^fast 1: failed: client-discards-unknown-task/);
    expect(run.clients.map((c) => [c.client.name, c.run.outcome])).toEqual([
      ['fast', 'fail'],
      ['calm', 'pass'],
    ]);
    // A warning fails the run under --fail-on warn, and a baseline expects the failure.
    expect(
      judgeProxy(traffic(), { failOn: 'warn', baseline: new Set(['client-discards-unknown-task']) }).reason,
    ).toMatch(/client-poll-cadence/);
  });

  it('writes JSON version 2 with each client and its rules on the client side, JUnit and Markdown', () => {
    const run = judgeProxy(traffic(), { failOn: 'fail' });
    const json = JSON.parse(proxyJson(run, facts)) as {
      version: number;
      rules: unknown[];
      clients: Array<{
        name: string;
        outcome: string;
        rules: Array<{ id: string; side: string; verdict: string }>;
      }>;
    };
    expect(json).toMatchObject({ format: 'taskscope-check', version: 2, outcome: 'fail', rules: [] });
    expect(json.clients[0]?.rules.find((r) => r.id === 'client-discards-unknown-task')).toMatchObject({
      side: 'client',
      verdict: 'fail',
    });
    const xml = proxyJunit(run, facts);
    expect(xml).toMatch(/<testsuite name="taskscope proxy: fast 1" tests="\d+" failures="1"/);
    expect(xml).toMatch(/<testsuite name="taskscope proxy: calm" tests="\d+" failures="0"/);
    expect(proxyMarkdown(run, facts)).toMatch(/### fast 1 \(2025-11-25\)/);
  });
});

describe('the trace files of a proxy run', () => {
  it('FILE for the first client session, FILE-2… before the extension for the others', () => {
    expect(traceFileName('out/observed.json', 0)).toBe('out/observed.json');
    expect(traceFileName('out/observed.json', 1)).toBe('out/observed-2.json');
    expect(traceFileName('out.d/observed', 2)).toBe('out.d/observed-3');
    expect(traceFileName('.hidden', 1)).toBe('.hidden-2');
  });
});

describe('a proxy run with no client', () => {
  it('fails: a client that went past the proxy must not pass green', () => {
    expect(judgeProxy([], { failOn: 'fail' })).toMatchObject({ outcome: 'fail', exitCode: 1, clients: [] });
  });
});
