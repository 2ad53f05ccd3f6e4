import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClassifiedError } from '../../mcp';
import { diagnose } from './watch';

/** What a page hears from a refused connection and from a CORS refusal alike: one TypeError. */
const failedFetch: ClassifiedError = {
  kind: 'cors-or-network',
  message: 'The receiver could not be reached, or it does not allow this origin (CORS).',
};

let server: Server | undefined;
afterEach(async () => {
  vi.unstubAllGlobals();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A port nothing listens on: one just given back by a server closed at once. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('diagnose: a failed connect told apart on a page', () => {
  it('nothing listening: says nothing answers at that URL', async () => {
    vi.stubGlobal('location', { origin: 'http://127.0.0.1:5173' });
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    const told = await diagnose(url, failedFetch);
    expect(told.diagnosis).toBe('unreachable');
    expect(told.message).toBe(
      `Nothing answers at ${url}: the connection was refused or the host is unknown. Is the receiver running?`,
    );
  });

  it('a receiver that answers, without CORS for the page: CORS, and the relay named', async () => {
    vi.stubGlobal('location', { origin: 'http://127.0.0.1:5173' });
    server = createServer((_request, response) => response.writeHead(405).end());
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const told = await diagnose(url, failedFetch);
    expect(told.diagnosis).toBe('cors');
    expect(told.message).toContain(`The receiver at ${url} answers`);
    expect(told.message).toContain('http://127.0.0.1:5173');
    expect(told.message).toContain('relay');
  });

  it('outside a page (no origin, no CORS) the error is left as it was', async () => {
    expect(await diagnose('http://127.0.0.1:9/mcp', failedFetch)).toBe(failedFetch);
  });
});
