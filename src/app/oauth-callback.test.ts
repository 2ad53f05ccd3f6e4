// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { handleOAuthCallback, isOAuthCallback, sameTabReturn } from './oauth-callback';
import { CALLBACK_CHANNEL_PREFIX, SAME_TAB_KEY, callbackFrom } from '../receiver/auth-actions';

describe('the /oauth/callback page', () => {
  afterEach(() => {
    window.history.replaceState(null, '', '/');
    document.body.innerHTML = '';
  });

  it('takes the code off the address at once and hands it over on the channel of its state', async () => {
    document.body.innerHTML = '<div id="root"></div>';
    window.history.replaceState(null, '', '/oauth/callback?code=c0de&state=s1&iss=https%3A%2F%2Fas.example');
    expect(isOAuthCallback()).toBe(true);
    const heard = new Promise<unknown>((resolve) => {
      const channel = new BroadcastChannel(`${CALLBACK_CHANNEL_PREFIX}s1`);
      channel.onmessage = (event: MessageEvent) => {
        channel.close();
        resolve(event.data);
      };
    });
    const close = vi.spyOn(window, 'close').mockImplementation(() => undefined);
    handleOAuthCallback();
    expect(window.location.href).toBe(`${window.location.origin}/oauth/callback`);
    expect(close).toHaveBeenCalled();
    expect(callbackFrom(await heard)).toEqual({
      state: 's1',
      code: 'c0de',
      iss: 'https://as.example',
      error: undefined,
      errorDescription: undefined,
    });
    expect(document.getElementById('root')?.textContent).toContain('Signed in');
  });

  it('keeps only strings of a sane length from what is posted', () => {
    expect(callbackFrom({ state: 's', code: { evil: true }, iss: 'x'.repeat(5000) })).toEqual({
      state: 's',
      code: undefined,
      iss: undefined,
      error: undefined,
      errorDescription: undefined,
    });
    expect(callbackFrom({ code: 'c' })).toBeUndefined();
    expect(callbackFrom('nope')).toBeUndefined();
  });
});

describe('coming back from a same-tab sign-in', () => {
  const keep = (state: string, returnTo: string) =>
    sessionStorage.setItem(
      SAME_TAB_KEY,
      JSON.stringify({
        trip: { version: 1, receiverUrl: 'r', redirectUri: 'u', savedAt: 0, pending: { state }, steps: [] },
        returnTo,
      }),
    );
  afterEach(() => {
    sessionStorage.clear();
    window.history.replaceState(null, '', '/');
  });

  it("its own callback: the trip taken off storage, the address the page's own again, the code in memory only", () => {
    keep('s1', '/?server=%2Fdemo%2Fmcp-auth#x');
    window.history.replaceState(null, '', '/oauth/callback?code=c0de&state=s1');
    const back = sameTabReturn();
    expect(back?.callback).toMatchObject({ state: 's1', code: 'c0de' });
    expect(window.location.pathname + window.location.search + window.location.hash).toBe(
      '/?server=%2Fdemo%2Fmcp-auth#x',
    );
    expect(sessionStorage.getItem(SAME_TAB_KEY)).toBeNull();
  });

  it("another state (a popup's callback): nothing taken up, and the trip is cleared all the same", () => {
    keep('s1', '/');
    window.history.replaceState(null, '', '/oauth/callback?code=c0de&state=other');
    expect(sameTabReturn()).toBeUndefined();
    expect(window.location.search).toBe('?code=c0de&state=other');
    expect(sessionStorage.getItem(SAME_TAB_KEY)).toBeNull();
  });

  it('an address elsewhere is never gone back to', () => {
    for (const returnTo of [
      '//evil.example/x',
      'https://evil.example/',
      '/\\evil.example',
      '/oauth/callback?x=1',
    ]) {
      keep('s1', returnTo);
      window.history.replaceState(null, '', '/oauth/callback?code=c&state=s1');
      sameTabReturn();
      expect(window.location.href).toBe(`${window.location.origin}/`);
    }
  });
});
