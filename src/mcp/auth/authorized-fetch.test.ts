import { describe, expect, it } from 'vitest';
import { authorizedFetch, type BearerSession } from './authorized-fetch';

const session = (token: string | undefined): BearerSession => ({
  tokenToSend: async () => token,
  tokenRefused: async () => false,
  signInAsked: () => undefined,
  stepUp: async () => false,
});

/** The inner fetch of one request: what it was given, and an empty 200. */
function recording() {
  const seen: Array<RequestInit | undefined> = [];
  const inner: typeof fetch = async (_input, init) => {
    seen.push(init);
    return new Response(null, { status: 200 });
  };
  return { seen, inner };
}

describe('authorizedFetch', () => {
  it('sends a request without a token on exactly as it came', async () => {
    const { seen, inner } = recording();
    const init: RequestInit = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };
    await authorizedFetch(session(undefined), inner)('http://r/mcp', init);
    expect(seen).toEqual([init]);
    expect(seen[0]).toBe(init);
  });

  it('puts the token on a copy of the headers, leaving the caller’s own untouched', async () => {
    const { seen, inner } = recording();
    const headers = new Headers({ 'content-type': 'application/json', 'mcp-session-id': 's-1' });
    const init: RequestInit = { method: 'POST', headers, body: '{}' };
    await authorizedFetch(session('t-1'), inner)('http://r/mcp', init);
    const sent = new Headers(seen[0]?.headers);
    expect(sent.get('authorization')).toBe('Bearer t-1');
    expect(sent.get('mcp-session-id')).toBe('s-1');
    expect(seen[0]).toMatchObject({ method: 'POST', body: '{}' });
    expect(headers.has('authorization')).toBe(false);
  });
});
