// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { handleOAuthCallback, isOAuthCallback } from './oauth-callback';
import { CALLBACK_CHANNEL_PREFIX, callbackFrom } from '../connection/auth-actions';

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
