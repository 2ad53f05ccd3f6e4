import { describe, expect, it } from 'vitest';
import type { InboxEvent } from '../engine/messages';
import { parseTrace } from '../engine/trace/schema';
import { useInbox } from '../inbox/store';
import { newTrackedTask } from '../tasks/core/store';
import { buildTrace, exportFileName, redactUrl } from './export-trace';
import { inboxEvents } from './export-sources';

describe('redactUrl', () => {
  it('replaces credentials in the query and the userinfo, and names what it replaced', () => {
    const names = new Set<string>();
    expect(
      redactUrl('https://u:pw@r.example/mcp?api_key=1&access_token=2&sig=3&page=4&authCode=5', names),
    ).toBe(
      'https://u:redacted@r.example/mcp?api_key=%5Bredacted%5D&access_token=%5Bredacted%5D&sig=%5Bredacted%5D&page=4&authCode=%5Bredacted%5D',
    );
    expect([...names]).toEqual(['url password', '?api_key', '?access_token', '?sig', '?authCode']);
  });

  it('leaves a URL with nothing secret exactly as it was', () => {
    expect(redactUrl('http://127.0.0.1:3001/mcp?team=blue')).toBe('http://127.0.0.1:3001/mcp?team=blue');
    expect(redactUrl('not a url')).toBe('not a url');
  });
});

describe('buildTrace', () => {
  const task = newTrackedTask({ taskId: 't', connectionId: 1, origin: 'created', firstSeenAt: 2_000 });
  const sources = {
    receiver: {
      url: 'http://127.0.0.1:3001/mcp?token=abc',
      headers: { 'X-Api-Key': 'k', Accept: 'x' },
      sessionId: 'session-1',
    },
    tools: [],
    tasks: [{ ...task, entries: [{ kind: 'log' as const, at: 2_500, level: 'info', text: 'hi' }] }],
    snapshot: () => undefined,
    result: () => undefined,
    inbox: [],
    traffic: [],
  };

  it('redacts by default, keeps the session id, and spans what it holds', () => {
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

  it('keeps secrets only when asked', () => {
    const trace = buildTrace(sources, { includeSecrets: true, now: 9_000 });
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
