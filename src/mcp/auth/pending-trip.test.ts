import { describe, expect, it } from 'vitest';
import type { Discovered } from './discovery';
import { PENDING_TRIP_MS, pendingForTrip, pendingFromTrip } from './pending-trip';

const RECEIVER = 'https://mcp.example.com/mcp';
const REDIRECT = 'http://127.0.0.1:5173/oauth/callback';
const AT = { receiverUrl: RECEIVER, redirectUri: REDIRECT, now: 1_000_000 };

function trip(tokenEndpoint = 'https://auth.example.com/token') {
  const discovered: Discovered = {
    authorizationServerUrl: 'https://auth.example.com/',
    resource: RECEIVER,
    metadata: {
      issuer: 'https://auth.example.com/',
      authorization_endpoint: 'https://auth.example.com/authorize',
      token_endpoint: tokenEndpoint,
      response_types_supported: ['code'],
    },
  };
  return pendingForTrip(
    { state: 's', codeVerifier: 'v', discovered, client: { client_id: 'c' } },
    { kind: 'dynamic', steps: [], ...AT },
  );
}

describe('the pending sign-in a same-tab round trip keeps', () => {
  it('is taken up by the receiver and redirect it was made for, within its time', () => {
    expect(pendingFromTrip(trip(), { ...AT, now: AT.now + 1000 })?.pending).toMatchObject({
      state: 's',
      codeVerifier: 'v',
    });
    expect(pendingFromTrip(trip(), { ...AT, now: AT.now + PENDING_TRIP_MS })).toBeUndefined();
    expect(pendingFromTrip(trip(), { ...AT, receiverUrl: 'https://other.example.com/mcp' })).toBeUndefined();
    expect(
      pendingFromTrip(trip(), { ...AT, redirectUri: 'http://localhost:5173/oauth/callback' }),
    ).toBeUndefined();
  });

  it('is refused when storage aimed its token endpoint at a private address or plain http', () => {
    expect(pendingFromTrip(trip('https://10.0.0.5/token'), AT)).toBeUndefined();
    expect(pendingFromTrip(trip('http://auth.example.com/token'), AT)).toBeUndefined();
  });

  it('is refused when its shape is not one', () => {
    expect(pendingFromTrip({ ...trip(), pending: { state: 's' } }, AT)).toBeUndefined();
    expect(pendingFromTrip({ ...trip(), pending: null }, AT)).toBeUndefined();
  });
});
