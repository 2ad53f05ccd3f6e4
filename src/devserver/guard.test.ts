import { describe, expect, it } from 'vitest';
import { refusal, type GuardPolicy } from './guard';

const own: GuardPolicy = { allowedHosts: ['devbox.example'], pages: 'own', fetchSite: true };
const local: GuardPolicy = { allowedHosts: [], pages: 'local', allowedOrigins: ['https://tools.example'] };
const what = (headers: Record<string, string>, policy: GuardPolicy) => refusal(headers, policy)?.what;

describe('refusal: one guard for every listener', () => {
  it('refuses a Host that is neither loopback nor allowed, or is malformed (DNS rebinding)', () => {
    expect(what({ host: '127.0.0.1:5173' }, own)).toBeUndefined();
    expect(what({ host: 'localhost' }, local)).toBeUndefined();
    expect(what({ host: '[::1]:80' }, local)).toBeUndefined();
    expect(what({ host: 'devbox.example:5173' }, own)).toBeUndefined();
    expect(what({ host: 'evil.example' }, own)).toBe('host');
    expect(what({ host: 'devbox.example' }, local)).toBe('host');
    expect(what({}, local)).toBe('host');
    expect(what({ host: 'a@127.0.0.1' }, local)).toBe('host');
  });

  it('own: only this server’s exact http origin; no Origin is no page and passes', () => {
    expect(what({ host: '127.0.0.1:5173', origin: 'http://127.0.0.1:5173' }, own)).toBeUndefined();
    expect(what({ host: '127.0.0.1:5173' }, own)).toBeUndefined();
    expect(what({ host: '127.0.0.1:5173', origin: 'http://127.0.0.1:3000' }, own)).toBe('origin');
    expect(what({ host: '127.0.0.1:5173', origin: 'http://localhost:5173' }, own)).toBe('origin');
    expect(what({ host: '127.0.0.1:5173', origin: 'null' }, own)).toBe('origin');
    expect(what({ host: '127.0.0.1:5173', origin: 'http://127.0.0.1:5173/' }, own)).toBe('origin');
  });

  it('own with fetchSite: a cross-site request without Origin is still refused', () => {
    expect(what({ host: '127.0.0.1:5173', 'sec-fetch-site': 'cross-site' }, own)).toBe('origin');
    expect(what({ host: '127.0.0.1:5173', 'sec-fetch-site': 'same-site' }, own)).toBe('origin');
    expect(what({ host: '127.0.0.1:5173', 'sec-fetch-site': 'same-origin' }, own)).toBeUndefined();
    expect(what({ host: '127.0.0.1:5173', 'sec-fetch-site': 'cross-site' }, local)).toBeUndefined();
  });

  it('noNavigation: a browser navigation is refused, even from the page itself; other fetches pass', () => {
    const proxy: GuardPolicy = { ...own, noNavigation: true };
    const host = '127.0.0.1:5173';
    expect(what({ host, 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'same-origin' }, proxy)).toBe(
      'origin',
    );
    expect(what({ host, 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'none' }, proxy)).toBe('origin');
    expect(what({ host, 'sec-fetch-mode': 'cors', 'sec-fetch-site': 'same-origin' }, proxy)).toBeUndefined();
    expect(what({ host, 'sec-fetch-mode': 'navigate' }, own)).toBeUndefined();
  });

  it('local: any page on this machine, the listed origins, this server’s own host; nothing else', () => {
    expect(what({ host: '127.0.0.1:3001', origin: 'http://localhost:6274' }, local)).toBeUndefined();
    expect(what({ host: '127.0.0.1:3001', origin: 'https://tools.example' }, local)).toBeUndefined();
    expect(what({ host: '127.0.0.1:3001', origin: 'https://127.0.0.1:3001' }, local)).toBeUndefined();
    expect(what({ host: '127.0.0.1:3001', origin: 'https://evil.example' }, local)).toBe('origin');
    expect(what({ host: '127.0.0.1:3001', origin: 'file://' }, local)).toBe('origin');
  });

  it('says what it refused without echoing a long header', () => {
    const message = refusal(
      { host: 'localhost', origin: `https://${'a'.repeat(5000)}.example` },
      local,
    )!.message;
    expect(message.length).toBeLessThan(300);
  });
});
