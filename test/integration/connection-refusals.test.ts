import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ConnectReply } from '../../src/engine/messages';
import { engineOverChannel } from '../helpers/engine-channel';
import { stopAfterEach } from '../helpers/cleanups';
import { startDemoReceiver } from '../helpers/receivers';

/**
 * An address that is not an MCP endpoint is refused for good, each with its own sentence: a path where nothing
 * answers MCP, and a web page. (A receiver that answers but refuses the page's origin by CORS can only be told
 * in a browser: test/e2e/live.spec.ts checks its message where it offers the relay. How the page shows each
 * refusal: src/receiver/connection-notes.test.tsx.)
 */

const later = stopAfterEach();
const settings = { paused: false, minPollIntervalMs: 0 };

function engine() {
  const e = engineOverChannel({ history: async () => null });
  later(() => e.close());
  return e;
}

async function refusal(url: string) {
  const e = engine();
  const reply: ConnectReply = await e.bridge.request({
    type: 'connect',
    connectionId: 1,
    url,
    headers: {},
    settings,
  });
  if (reply.ok || reply.stale) throw new Error(`connected to ${url}`);
  // The header says "Connection failed": an error, not an outage the engine waits out.
  expect(e.health()?.status).toBe('error');
  return reply.error;
}

/** A web page on every path, that even allows CORS: what it answers is still not an MCP endpoint. */
async function webPage() {
  const server = createServer((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Headers', '*');
    res.setHeader('Access-Control-Allow-Methods', '*');
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    res
      .writeHead(200, { 'Content-Type': 'text/html' })
      .end('<!doctype html><title>Welcome</title><h1>Hi</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  later(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
}

describe('an address that is not an MCP endpoint', () => {
  it('a path where no receiver answers is "No MCP endpoint", naming the address', async () => {
    const receiver = await startDemoReceiver();
    later(receiver.close);
    const wrong = receiver.url.replace(/\/mcp$/, '/nope/mcp');
    const error = await refusal(wrong);
    expect(error.message).toMatch(/No MCP endpoint/i);
    expect(error.message).toContain('/nope/mcp');
    expect(error.message).not.toMatch(/web page|CORS/);
  });

  it('a web page is said to be one, and none of its text reaches the message', async () => {
    const error = await refusal(await webPage());
    expect(error.message).toContain('web page');
    expect(error.message).not.toMatch(/No MCP endpoint|CORS/);
    expect(JSON.stringify(error)).not.toContain('Welcome');
  });
});
