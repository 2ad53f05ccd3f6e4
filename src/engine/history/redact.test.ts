import { describe, expect, it } from 'vitest';
import { REDACTED, isSecretHeader, redactForStorage, redactHeaders } from './redact';

describe('redactHeaders', () => {
  it('replaces the values of secret headers, whatever their case, and keeps the rest', () => {
    const headers = {
      Authorization: 'Bearer abc',
      'X-Api-Key': 'k',
      'proxy-authorization': 'Basic x',
      Cookie: 'a=b',
      'Set-Cookie': 'c=d',
      'api-key': 'k2',
      'X-Auth-Token': 't',
      'X-Taskscope-Relay-Token': 'relay',
      'X-Goog-Api-Key': 'g',
      'X-Client-Secret': 's',
      'X-Password': 'p',
      'X-Session-Token': 'st',
      Accept: 'application/json',
      'Content-Type': 'application/json',
      'Mcp-Session-Id': 'session-1',
    };
    const redacted = redactHeaders(headers);
    expect(redacted).toEqual({
      Authorization: REDACTED,
      'X-Api-Key': REDACTED,
      'proxy-authorization': REDACTED,
      Cookie: REDACTED,
      'Set-Cookie': REDACTED,
      'api-key': REDACTED,
      'X-Auth-Token': REDACTED,
      'X-Taskscope-Relay-Token': REDACTED,
      'X-Goog-Api-Key': REDACTED,
      'X-Client-Secret': REDACTED,
      'X-Password': REDACTED,
      'X-Session-Token': REDACTED,
      Accept: 'application/json',
      'Content-Type': 'application/json',
      'Mcp-Session-Id': 'session-1',
    });
    // The caller's object is not touched: the live connection still needs its credentials.
    expect(headers.Authorization).toBe('Bearer abc');
  });

  it('keeps a __proto__ header an own property rather than a prototype', () => {
    const headers = JSON.parse('{"__proto__": "x", "authorization": "y"}') as Record<string, string>;
    const redacted = redactHeaders(headers);
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(redacted, '__proto__')?.value).toBe('x');
    expect(redacted.authorization).toBe(REDACTED);
  });

  it('names: exact list and substrings', () => {
    expect(isSecretHeader(' AUTHORIZATION ')).toBe(true);
    expect(isSecretHeader('keep-alive')).toBe(false);
    expect(isSecretHeader('accept')).toBe(false);
    expect(isSecretHeader('x-my-keyring')).toBe(true);
  });
});

describe('redactForStorage', () => {
  it('redacts headers objects nested anywhere, in records, pairs and Maps', () => {
    const value = {
      connection: { url: 'http://x', headers: { Authorization: 'Bearer secret', Accept: '*/*' } },
      list: [
        {
          request: {
            Headers: [
              ['X-Api-Key', 'k'],
              ['Accept', 'a'],
            ],
          },
        },
      ],
      responseHeaders: new Map([['set-cookie', 'sid=1']]),
      untouched: { deep: [1, 2, 3] },
    };
    const redacted = redactForStorage(value);
    expect(redacted.connection.headers).toEqual({ Authorization: REDACTED, Accept: '*/*' });
    expect(redacted.list[0]!.request.Headers).toEqual([
      ['X-Api-Key', REDACTED],
      ['Accept', 'a'],
    ]);
    expect([...redacted.responseHeaders]).toEqual([['set-cookie', REDACTED]]);
    // Copy on write: the original keeps its secrets, parts without headers are shared.
    expect(value.connection.headers.Authorization).toBe('Bearer secret');
    expect(redacted.untouched).toBe(value.untouched);
    expect(redacted).not.toBe(value);
  });

  it('returns the very value when there is nothing to redact', () => {
    const value = { a: [{ b: { headers: { accept: 'x' } } }], c: 'd' };
    expect(redactForStorage(value)).toBe(value);
    expect(redactForStorage('text')).toBe('text');
    expect(redactForStorage(null)).toBe(null);
  });

  it('redacts an object reached through two parents on both paths, and survives a cycle', () => {
    const shared = { headers: { authorization: 'Bearer s' } };
    const value: Record<string, unknown> = { first: shared, second: [shared] };
    value.self = value;
    const redacted = redactForStorage(value) as {
      first: typeof shared;
      second: Array<typeof shared>;
      self: unknown;
    };
    expect(redacted.first.headers.authorization).toBe(REDACTED);
    expect(redacted.second[0]!.headers.authorization).toBe(REDACTED);
    expect(redacted.self).toBe(redacted);
    expect(shared.headers.authorization).toBe('Bearer s');
  });

  it('walks a value nested 10,000 deep without overflowing, and redacts at the bottom', () => {
    const bottom: Record<string, unknown> = { headers: { 'x-api-key': 'deep-secret' } };
    let value: Record<string, unknown> = bottom;
    for (let i = 0; i < 10_000; i++) value = i % 2 === 0 ? { child: value } : { list: [value] };
    const redacted = redactForStorage(value);
    let node: unknown = redacted;
    for (let i = 0; i < 10_000; i++) {
      const n = node as { child?: unknown; list?: unknown[] };
      node = n.child ?? n.list![0];
    }
    expect((node as typeof bottom).headers).toEqual({ 'x-api-key': REDACTED });
    expect(bottom.headers).toEqual({ 'x-api-key': 'deep-secret' });
  });

  it('keeps an own __proto__ key of a copied object a key', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "headers": {"cookie": "c"}}') as Record<
      string,
      unknown
    >;
    const redacted = redactForStorage(value);
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(redacted, '__proto__')?.value).toEqual({ polluted: true });
    expect(redacted.headers).toEqual({ cookie: REDACTED });
  });
});
