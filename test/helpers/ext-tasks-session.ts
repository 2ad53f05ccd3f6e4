import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, type RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';

type Json = Record<string, unknown>;
const CLIENT_INFO = { name: 'taskscope-test', version: '0.0.0' };

/**
 * The ext-tasks client on a 2026-07-28 receiver, the reference the tests hold Taskscope's engine against. Its
 * questions are answered "teal". The SDK client's own request() refuses resultType "task", so ext-tasks is
 * given a raw path of its own on a second transport. `fetch` (both transports) lets a test see the traffic.
 */
export async function extTasksSession(url: string, endpointId: string, fetch?: typeof globalThis.fetch) {
  const client = new Client(CLIENT_INFO, {
    capabilities: { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } },
    versionNegotiation: { mode: 'auto' },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {}));
  const raw = new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {});
  const pending = new Map<unknown, (m: Json) => void>();
  let n = 0;
  raw.onmessage = (m) => {
    const message = m as Json;
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  };
  await raw.start();
  const rawDispatch: RawClientDispatch = (request) =>
    new Promise((resolve, reject) => {
      const id = `raw-${++n}`;
      pending.set(id, (m) =>
        resolve(
          'error' in m
            ? { kind: 'error', error: m.error as { code: number; message: string } }
            : { kind: 'result', result: m.result as never },
        ),
      );
      raw.send({ jsonrpc: '2.0', id, ...(request as Json) } as never).catch(reject);
    });
  const tasks = createTaskSessionFromClient(client, {
    endpointId,
    rawDispatch,
    v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo: CLIENT_INFO, clientCapabilities: {} },
    onInputRequest: async () => ({ action: 'accept', content: { answer: 'teal' } }) as never,
  });
  return {
    client,
    tasks,
    close: async () => {
      await tasks.close();
      await client.close();
      await raw.close();
    },
  };
}
