import { describe, expect, it } from 'vitest';
import type { SeenMessage } from './client-evidence';
import { splitClientSessions, UNNAMED_CLIENT } from './client-sessions';

const at = (n: number) => ({ at: n, wallTime: n });
const meta = (name: string) => ({
  _meta: { 'io.modelcontextprotocol/clientInfo': { name, version: '2' } },
});

describe('client sessions', () => {
  it('tells 2025 sessions apart by Mcp-Session-Id and names each by its initialize', () => {
    const messages: SeenMessage[] = [
      {
        ...at(1),
        from: 'client',
        exchange: 1,
        message: { id: 1, method: 'initialize', params: { clientInfo: { name: 'host-a', version: '1' } } },
      },
      { ...at(2), from: 'server', exchange: 1, sessionId: 'A', message: { id: 1, result: {} } },
      {
        ...at(3),
        from: 'client',
        exchange: 2,
        message: { id: 1, method: 'initialize', params: { clientInfo: { name: 'host-b' } } },
      },
      { ...at(4), from: 'server', exchange: 2, sessionId: 'B', message: { id: 1, result: {} } },
      {
        ...at(5),
        from: 'client',
        exchange: 3,
        sessionId: 'A',
        message: { id: 2, method: 'tasks/get', params: { taskId: 't' } },
      },
      { ...at(6), from: 'server', exchange: 3, sessionId: 'A', message: { id: 2, result: {} } },
    ];
    const clients = splitClientSessions(messages);
    const a = clients.find((c) => c.sessionId === 'A');
    expect(a).toMatchObject({ key: 'session:A', name: 'host-a', version: '1' });
    // The initialize request is the session's own: its answer named the session.
    expect(a?.messages.map((m) => m.at)).toEqual([1, 2, 5, 6]);
    expect(clients.find((c) => c.sessionId === 'B')?.name).toBe('host-b');
    expect(clients).toHaveLength(2);
  });

  it('tells 2026 clients apart by their clientInfo, answers following their exchange', () => {
    const messages: SeenMessage[] = [
      {
        ...at(1),
        from: 'client',
        exchange: 1,
        message: { id: 1, method: 'tools/call', params: meta('one') },
      },
      {
        ...at(2),
        from: 'client',
        exchange: 2,
        message: { id: 1, method: 'tools/call', params: meta('two') },
      },
      { ...at(3), from: 'server', exchange: 2, message: { id: 1, result: {} } },
      { ...at(4), from: 'server', exchange: 1, message: { id: 1, result: {} } },
      { ...at(5), from: 'client', message: { id: 9, method: 'tasks/get', params: {} } },
    ];
    const clients = splitClientSessions(messages);
    expect(clients.map((c) => [c.key, c.messages.map((m) => m.at)])).toEqual([
      ['client:one@2', [1, 4]],
      ['client:two@2', [2, 3]],
      [UNNAMED_CLIENT, [5]],
    ]);
  });

  it('keeps at most the cap of named clients; the rest count as the unnamed one', () => {
    const messages: SeenMessage[] = Array.from({ length: 10 }, (_, i) => ({
      ...at(i),
      from: 'client' as const,
      sessionId: `s${i}`,
      message: { id: i, method: 'ping' },
    }));
    const clients = splitClientSessions(messages, 3);
    expect(clients).toHaveLength(4);
    expect(clients.at(-1)).toMatchObject({ key: UNNAMED_CLIENT });
  });
});

describe('client sessions over stdio', () => {
  it('are one client, named by its initialize', () => {
    const messages: SeenMessage[] = [
      {
        ...at(1),
        from: 'client',
        message: { id: 1, method: 'initialize', params: { clientInfo: { name: 'host', version: '1' } } },
      },
      { ...at(2), from: 'server', message: { id: 1, result: {} } },
      { ...at(3), from: 'client', message: { id: 2, method: 'tools/list' } },
      { ...at(4), from: 'server', message: { id: 2, result: {} } },
    ];
    expect(splitClientSessions(messages).map((c) => [c.key, c.name, c.messages.length])).toEqual([
      ['client:host@1', 'host', 4],
    ]);
  });
});
