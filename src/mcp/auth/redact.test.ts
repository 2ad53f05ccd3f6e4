import { describe, expect, it } from 'vitest';
import { redactAuthText } from './redact';

describe('redactAuthText', () => {
  it('replaces secrets in form bodies, JSON and URLs and keeps the rest', () => {
    const form = 'grant_type=authorization_code&code=abc123&code_verifier=v-e-r&redirect_uri=http%3A%2F%2Fx';
    expect(redactAuthText(form)).toBe(
      'grant_type=authorization_code&code=[redacted]&code_verifier=[redacted]&redirect_uri=http%3A%2F%2Fx',
    );
    const json = '{"access_token":"t.o\\"k","token_type":"Bearer","refresh_token": "r1","scope":"a"}';
    expect(redactAuthText(json)).toBe(
      '{"access_token":"[redacted]","token_type":"Bearer","refresh_token": "[redacted]","scope":"a"}',
    );
    expect(redactAuthText('http://127.0.0.1/oauth/callback?code=zz&state=s1&iss=x')).toBe(
      'http://127.0.0.1/oauth/callback?code=[redacted]&state=s1&iss=x',
    );
    expect(redactAuthText('{"client_id":"c","client_secret":"s"}')).toBe(
      '{"client_id":"c","client_secret":"[redacted]"}',
    );
  });

  it('leaves look-alike names alone', () => {
    expect(redactAuthText('error_code=1&codec=x&response_type=code')).toBe(
      'error_code=1&codec=x&response_type=code',
    );
  });

  it('replaces a JSON secret cut short before its closing quote, to the end of the text', () => {
    expect(redactAuthText('{"token_type":"Bearer","id_token":"eyJhbGciOi')).toBe(
      '{"token_type":"Bearer","id_token":"[redacted]"',
    );
    expect(redactAuthText('{"refresh_token":"ab\\')).toBe('{"refresh_token":"[redacted]"');
  });
});
