import { describe, expect, it } from 'vitest';
import { registrationMetadata } from './client-identity';

describe('what Taskscope registers as (RFC 7591, SEP-837)', () => {
  it.each([
    ['http://127.0.0.1:5173/oauth/callback', 'native'],
    ['http://localhost:5173/oauth/callback', 'native'],
    ['http://[::1]:5173/oauth/callback', 'native'],
    ['http://192.168.1.20:5173/oauth/callback', 'web'],
    ['https://taskscope.example/oauth/callback', 'web'],
  ])('a page whose redirect is %s registers as %s', (redirectUri, type) => {
    expect(registrationMetadata(redirectUri)).toMatchObject({
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      application_type: type,
    });
  });
});
