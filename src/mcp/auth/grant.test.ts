import { describe, expect, it } from 'vitest';
import { rememberedGrant } from './grant';
import type { RememberedSignIn } from './types';

const RECEIVER = 'https://mcp.example.com/mcp';

function remembered(
  tokenEndpoint: string,
  authorizationServerUrl = 'https://auth.example.com/',
): RememberedSignIn {
  return {
    version: 1,
    receiverUrl: RECEIVER,
    issuer: authorizationServerUrl,
    grant: {
      tokens: { access_token: 'a', token_type: 'Bearer', refresh_token: 'r' },
      discovered: {
        authorizationServerUrl,
        resource: RECEIVER,
        metadata: { issuer: authorizationServerUrl, token_endpoint: tokenEndpoint },
      },
      client: { client_id: 'c' },
    },
  };
}

describe('rememberedGrant', () => {
  it('takes up a stored sign-in whose endpoints pass the same check as when it was found', () => {
    expect(rememberedGrant(remembered('https://auth.example.com/token'), RECEIVER)?.client.client_id).toBe(
      'c',
    );
  });

  it('refuses one whose stored endpoints were changed to this machine, a private network or plain http', () => {
    expect(rememberedGrant(remembered('https://127.0.0.1/token'), RECEIVER)).toBeUndefined();
    expect(rememberedGrant(remembered('http://auth.example.com/token'), RECEIVER)).toBeUndefined();
    expect(
      rememberedGrant(remembered('https://auth.example.com/token', 'https://10.0.0.5/'), RECEIVER),
    ).toBeUndefined();
    expect(
      rememberedGrant(remembered('https://auth.example.com/token'), 'https://other.example/mcp'),
    ).toBeUndefined();
  });
});
