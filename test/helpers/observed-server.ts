import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SeenMessage } from '../../src/mcp';

/**
 * A stand-in for Taskscope's server as the page reads what its proxy observed (notes/observed-api): GET
 * /observed/sources and GET /observed/messages?source=&after= (NDJSON `{seq, seen}`, every kept message past
 * `after`, then each new one as it comes, never ended by the server), both under a token header, 404 for an
 * unknown source. It serves `messages` — a recordingFetch's array, growing as the real client runs — as the
 * one source `name`. `cut()` ends every open stream, as the server does to a reader that fell behind.
 */
export async function startObservedServer(options: {
  name: string;
  upstream: string;
  messages: SeenMessage[];
  note?: string;
}) {
  const token = 'observed-test-token';
  const streams = new Set<ServerResponse>();
  /** Lines served, for a test to see where readers asked to start. */
  const afters: number[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers['x-taskscope-relay-token'] !== token)
      return json(403, { error: 'missing or wrong token' });
    if (url.pathname === '/observed/sources')
      return json(200, {
        sources: [
          {
            name: options.name,
            kind: 'http',
            upstream: options.upstream,
            ...(options.note ? { note: options.note } : {}),
          },
        ],
      });
    if (url.pathname !== '/observed/messages') return json(404, { error: 'not found' });
    if (url.searchParams.get('source') !== options.name) return json(404, { error: 'unknown source' });
    let sent = Number(url.searchParams.get('after') ?? '0');
    afters.push(sent);
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    streams.add(res);
    // seq is the message's place in the array, from 1, as the proxy numbers them for the life of the source.
    const send = () => {
      while (sent < options.messages.length) {
        const seen = options.messages[sent] as SeenMessage;
        sent++;
        res.write(`${JSON.stringify({ seq: sent, seen })}\n`);
      }
    };
    send();
    // The recording array grows as the client runs; the server passes each new message on as it comes.
    const timer = setInterval(send, 10);
    res.on('close', () => {
      clearInterval(timer);
      streams.delete(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    afters,
    cut: () => {
      for (const res of streams) res.destroy();
    },
    close: async () => {
      for (const res of streams) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
