import { describe, expect, it } from 'vitest';
import { normaliseResult, type Era, type TrafficEvent } from '../mcp';
import { buildContext } from './evidence';
import { evaluateReport } from './evaluate';
import { resultRelatedMeta, taskOnlyForToolsCall } from './wire-rules';
import { oneTaskReport, trafficExchanges } from '../../test/helpers/task-records';

const reportOf = (era: Era, traffic: TrafficEvent[]) => ({
  ...oneTaskReport([]),
  receiver: { url: 'http://127.0.0.1:1/mcp', era },
  tasks: [],
  traffic,
});
const rpc = (result: unknown) => ({ jsonrpc: '2.0', id: 1, result });
const wireTask = { taskId: 'r1', status: 'working', createdAt: '2026-12-07T09:00:00Z', ttl: 60_000 };

describe('task-only-for-tools-call', () => {
  it('2025-11-25: a resources/read answered with a CreateTaskResult fails the MUST, at that answer', () => {
    const exchange = trafficExchanges();
    const traffic = [
      ...exchange('initialize', {}, rpc({ protocolVersion: '2025-11-25', capabilities: {} })),
      ...exchange('tools/list', {}, rpc({ tools: [] })),
      ...exchange('resources/read', { uri: 'file:///a' }, rpc({ task: wireTask })),
    ];
    const judged = taskOnlyForToolsCall(buildContext(reportOf('2025-11-25', traffic)));
    expect(judged.observations).toBe(3);
    expect(judged.offences).toEqual([
      expect.objectContaining({ trafficSeq: 6, detail: 'resources/read answered with task r1' }),
    ]);
    const rule = evaluateReport(reportOf('2025-11-25', traffic)).rules.find(
      (r) => r.id === 'task-only-for-tools-call',
    );
    expect(rule).toMatchObject({ verdict: 'fail', firstOffence: { trafficSeq: 6 } });
  });

  it('2025-11-25: tools/call creating a task and the user documents’ {task} from tasks/get are no offence', () => {
    const exchange = trafficExchanges();
    const traffic = [
      ...exchange('tools/list', {}, rpc({ tools: [] })),
      ...exchange('tools/call', { name: 'job', task: {} }, rpc({ task: wireTask })),
      ...exchange('tasks/get', { taskId: 'r1' }, rpc({ task: wireTask })),
      // A `task` field that is no object is no CreateTaskResult…
      ...exchange('ping', {}, rpc({ task: 'not one' })),
      // …and an answer that is no result (an error) says nothing here.
      ...exchange('resources/read', {}, { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'no' } }),
    ];
    const judged = taskOnlyForToolsCall(buildContext(reportOf('2025-11-25', traffic)));
    expect(judged).toMatchObject({ observations: 2, offences: [] });
    expect(judged.passReason).toBe('2 answers to requests other than tools/call, none of them a task.');
  });

  it('2026-07-28: resultType "task" on anything but tools/call fails, tasks/get included; "complete" passes', () => {
    const exchange = trafficExchanges();
    const discover = rpc({ resultType: 'complete', supportedVersions: ['2026-07-28'] });
    const traffic = [
      ...exchange('server/discover', {}, discover),
      ...exchange('tools/call', { name: 'job' }, rpc({ resultType: 'task', ...wireTask })),
      ...exchange('tasks/get', { taskId: 'r1' }, rpc({ resultType: 'complete', ...wireTask })),
      ...exchange('resources/read', { uri: 'file:///a' }, rpc({ resultType: 'task', ...wireTask })),
      ...exchange('tasks/get', { taskId: 'r1' }, rpc({ resultType: 'task' })),
    ];
    const judged = taskOnlyForToolsCall(buildContext(reportOf('2026-07-28', traffic)));
    expect(judged.observations).toBe(4);
    expect(judged.offences.map((o) => o.detail).sort()).toEqual([
      'resources/read answered with task r1',
      'tasks/get answered with task',
    ]);
    const card = evaluateReport(reportOf('2026-07-28', traffic));
    expect(card.rules.find((r) => r.id === 'task-only-for-tools-call')?.verdict).toBe('fail');
  });

  it('nothing but tools/call answered yet: unobserved, never a pass', () => {
    const exchange = trafficExchanges();
    const traffic = exchange('tools/call', { name: 'job', task: {} }, rpc({ task: wireTask }));
    const rule = evaluateReport(reportOf('2025-11-25', traffic)).rules.find(
      (r) => r.id === 'task-only-for-tools-call',
    );
    expect(rule?.verdict).toBe('unobserved');
  });
});

describe('result-related-meta', () => {
  it('a whole result that is no CallToolResult is still judged for its _meta (only a cut one is not)', () => {
    const results = new Map([['t1', normaliseResult({ content: 'not a list' }, { expectedTaskId: 't1' })]]);
    const judged = resultRelatedMeta(buildContext({ ...oneTaskReport([]), results }));
    expect(judged.observations).toBe(1);
    expect(judged.offences.map((o) => o.detail)).toEqual([
      'result without related-task _meta naming its task',
    ]);
  });
});
