import { describe, expect, it } from 'vitest';
import { REDACTED, isSecretHeader, isSecretParam, redactHeaders, redactUrl } from './redact-headers';

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

describe('secret names: narrow for headers, wide for query parameters', () => {
  it('redacts credential headers and keeps the ones needed to read an exchange', () => {
    for (const name of ['Authorization', 'Cookie', 'X-Goog-Api-Key', 'X-Session-Token', 'X-Client-Secret'])
      expect(isSecretHeader(name)).toBe(true);
    for (const name of [
      'accept',
      'keep-alive',
      'content-encoding',
      'WWW-Authenticate',
      'Proxy-Authenticate',
      'Access-Control-Allow-Credentials',
      'X-Error-Code',
      'X-Session-Affinity',
      'X-Signature-Algorithm',
    ])
      expect(isSecretHeader(name), name).toBe(false);
    expect(
      redactHeaders({
        api_key: '1',
        page: '4',
        'www-authenticate': 'Bearer realm="r"',
        'x-error-code': 'E1',
      }),
    ).toEqual({ api_key: REDACTED, page: '4', 'www-authenticate': 'Bearer realm="r"', 'x-error-code': 'E1' });
  });

  it('names more query parameters secret than headers, and every secret header name too', () => {
    for (const name of ['sig', 'authCode', 'session', 'X-Session-Token', 'api_key', 'credential'])
      expect(isSecretParam(name), name).toBe(true);
    expect(isSecretParam('team')).toBe(false);
    expect(redactUrl('http://r.example/mcp?X-Session-Token=1')).toContain('X-Session-Token=%5Bredacted%5D');
  });

  it('keeps the MCP session id and protocol version: exports pseudonymise sessions instead', () => {
    expect(isSecretHeader('Mcp-Session-Id')).toBe(false);
    expect(isSecretHeader('MCP-Protocol-Version')).toBe(false);
    expect(isSecretParam('mcp-session-id')).toBe(false);
    expect(redactHeaders({ 'mcp-session-id': 's1' })).toEqual({ 'mcp-session-id': 's1' });
  });
});
