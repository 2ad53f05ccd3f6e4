import { describe, expect, it } from 'vitest';
import type { InboxEvent } from '../engine/messages';
import { parseTrace } from '../engine/trace/schema';
import { useInbox } from '../inbox/inbox-store';
import { newTrackedTask } from '../tracker/task-store';
import type { TrafficEvent } from '../mcp';
import { buildTrace, exportFileName } from '../engine/trace/build-trace';
import { buildHar } from './har';
import { inboxEvents } from './export-sources';

describe('buildTrace', () => {
  const task = newTrackedTask({ taskId: 't', connectionId: 1, origin: 'created', firstSeenAt: 2_000 });
  const sources = {
    receiver: {
      url: 'http://127.0.0.1:3001/mcp?token=abc',
      headers: { 'X-Api-Key': 'k', Accept: 'x' },
      sessionId: 'live-b7f3',
    },
    tools: [],
    tasks: [{ ...task, entries: [{ kind: 'log' as const, at: 2_500, level: 'info', text: 'hi' }] }],
    snapshot: () => undefined,
    result: () => undefined,
    inbox: [],
    traffic: [],
  };

  it('redacts by default, names sessions by pseudonym, and spans what it holds', () => {
    const trace = buildTrace(sources, { now: 9_000 });
    expect(trace.receiver).toEqual({
      url: 'http://127.0.0.1:3001/mcp?token=%5Bredacted%5D',
      headers: { 'X-Api-Key': '[redacted]', Accept: 'x' },
      sessionId: 'session-1',
    });
    expect(trace.redacted).toEqual(['?token', 'X-Api-Key']);
    expect([trace.startedAt, trace.endedAt]).toEqual([2_000, 2_500]);
    expect(trace.exportedAt).toBe(new Date(9_000).toISOString());
    expect(parseTrace(JSON.parse(JSON.stringify(trace)))).toMatchObject({ ok: true, trace });
  });

  it('replaces each session id by the same pseudonym everywhere: receiver, tasks, HTTP headers, HAR', () => {
    const http = (session: string) => ({
      method: 'POST',
      url: 'http://127.0.0.1:3001/mcp',
      requestHeaders: { 'mcp-session-id': session },
      status: 200,
      responseHeaders: { 'Mcp-Session-Id': session },
      wallStartedAt: 2_000,
      waitMs: 1,
    });
    const event = (seq: number, session: string): TrafficEvent => ({
      seq,
      at: seq,
      wallTime: 2_000 + seq,
      direction: 'in',
      kind: 'response',
      bytes: 2,
      requestSeq: seq - 1,
      http: http(session),
      message: { jsonrpc: '2.0', id: seq, result: {} },
    });
    const withSessions = {
      ...sources,
      tasks: [
        { ...sources.tasks[0]!, sessionId: 'old-9e21' },
        { ...task, taskId: 'u', sessionId: 'live-b7f3' },
      ],
      traffic: [event(2, 'old-9e21'), event(4, 'live-b7f3')],
    };
    const trace = buildTrace(withSessions, { now: 9_000 });
    const text = JSON.stringify(trace) + JSON.stringify(buildHar(trace));
    expect(text).not.toContain('live-b7f3');
    expect(text).not.toContain('old-9e21');
    expect(trace.receiver.sessionId).toBe('session-1');
    expect(trace.tasks.map((t) => t.sessionId)).toEqual(['session-2', 'session-1']);
    expect(trace.traffic.map((e) => e.http?.requestHeaders['mcp-session-id'])).toEqual([
      'session-2',
      'session-1',
    ]);
    expect(trace.traffic.map((e) => e.http?.responseHeaders['Mcp-Session-Id'])).toEqual([
      'session-2',
      'session-1',
    ]);
    const kept = JSON.stringify(buildTrace(withSessions, { includeSecrets: true, now: 9_000 }));
    expect(kept).toContain('live-b7f3');
    expect(kept).toContain('old-9e21');
  });

  it('keeps secrets only when asked', () => {
    const trace = buildTrace(sources, { includeSecrets: true, now: 9_000 });
    expect(trace.receiver.sessionId).toBe('live-b7f3');
    expect(trace.receiver.url).toBe('http://127.0.0.1:3001/mcp?token=abc');
    expect(trace.receiver.headers).toEqual({ 'X-Api-Key': 'k', Accept: 'x' });
    expect(trace.redacted).toEqual([]);
  });

  it('an empty page gives an empty trace spanning the moment of export', () => {
    const trace = buildTrace({ ...sources, tasks: [] }, { now: 9_000 });
    expect([trace.startedAt, trace.endedAt, trace.tasks]).toEqual([9_000, 9_000, []]);
  });
});

describe('inboxEvents', () => {
  it('gives back events that make the same inbox when applied again', () => {
    const events: InboxEvent[] = [
      {
        kind: 'asked',
        request: {
          key: 'a',
          connectionId: 1,
          requestId: 1,
          method: 'elicitation/create',
          params: { message: 'Colour?' },
          relatedTaskId: 't',
          receivedAt: 1,
        },
      },
      {
        kind: 'asked',
        request: {
          key: 'b',
          connectionId: 1,
          requestId: 2,
          method: 'sampling/createMessage',
          params: {},
          receivedAt: 2,
        },
      },
      {
        kind: 'settled',
        key: 'a',
        state: 'answered',
        outcome: 'accept',
        at: 5,
        reply: { result: { action: 'accept', content: { colour: 'teal' } } },
      },
      {
        kind: 'settled',
        key: 'b',
        state: 'answered',
        outcome: 'model-x',
        at: 6,
        reply: { result: { role: 'assistant', model: 'model-x', content: { type: 'text', text: 'hi' } } },
      },
    ];
    useInbox.setState({ items: [] });
    useInbox.getState().apply(events);
    const items = useInbox.getState().items;
    useInbox.setState({ items: [] });
    useInbox.getState().apply(inboxEvents(items));
    expect(useInbox.getState().items).toEqual(items);
    expect(items.map((i) => i.sent?.kind)).toEqual(['elicitation', 'sampling']);
  });
});

describe('exportFileName', () => {
  it('names the receiver host and the local time', () => {
    const at = new Date(2026, 11, 1, 7, 5, 3);
    expect(exportFileName('http://127.0.0.1:3001/mcp', 'har', at)).toBe(
      'taskscope-127.0.0.1-3001-20261201-070503.har',
    );
    expect(exportFileName('http://[::1]:80/x', 'trace.json', at)).toBe(
      'taskscope--1--20261201-070503.trace.json',
    );
  });
});
