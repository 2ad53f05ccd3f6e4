import { describe, expect, it } from 'vitest';
import { REDACTED, isSecretHeader, redactHeaders, redactUrl } from './redact-headers';

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

describe('one secret-name rule for headers and query parameters', () => {
  it('names the same things secret in both places', () => {
    for (const name of ['Authorization', 'X-Goog-Api-Key', 'X-Session-Token', 'X-Signature', 'X-Auth-Code'])
      expect(isSecretHeader(name)).toBe(true);
    for (const name of ['accept', 'keep-alive', 'content-encoding', 'team'])
      expect(isSecretHeader(name)).toBe(false);
    expect(redactUrl('http://r.example/mcp?X-Session-Token=1')).toContain('X-Session-Token=%5Bredacted%5D');
    expect(redactHeaders({ api_key: '1', page: '4' })).toEqual({ api_key: REDACTED, page: '4' });
  });

  it('keeps the MCP session id and protocol version: exports pseudonymise sessions instead', () => {
    expect(isSecretHeader('Mcp-Session-Id')).toBe(false);
    expect(isSecretHeader('MCP-Protocol-Version')).toBe(false);
    expect(redactHeaders({ 'mcp-session-id': 's1' })).toEqual({ 'mcp-session-id': 's1' });
  });
});
