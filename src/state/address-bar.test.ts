// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from 'vitest';
import { demoReceiverUrl, receiverFromParam, receiverParam } from './address-bar';

const ORIGIN = 'http://127.0.0.1:5173';
beforeEach(() => sessionStorage.clear());

describe('the receiver in the address', () => {
  it('is left out for the demo receiver, a path on this origin, the whole URL elsewhere', () => {
    expect(receiverParam(demoReceiverUrl(ORIGIN), ORIGIN)).toBeUndefined();
    expect(receiverParam(`${ORIGIN}/demo/mcp-2026`, ORIGIN)).toBe('/demo/mcp-2026');
    expect(receiverParam('http://127.0.0.1:3001/mcp', ORIGIN)).toBe('http://127.0.0.1:3001/mcp');
    expect(receiverFromParam(null, ORIGIN)).toBe(`${ORIGIN}/demo/mcp`);
    expect(receiverFromParam('/demo/mcp-2026', ORIGIN)).toBe('/demo/mcp-2026');
  });

  it('never holds a secret: the address shows it redacted, and this tab alone puts it back', () => {
    const full = 'https://mcp.example/mcp?api_key=s3cret&region=eu';
    const shown = receiverParam(full, ORIGIN);
    expect(shown).not.toContain('s3cret');
    expect(shown).toContain('region=eu');
    expect(receiverFromParam(shown!, ORIGIN)).toBe(full);
    // Another tab (or a shared link) has no such memory: it gets what the address says.
    sessionStorage.clear();
    expect(receiverFromParam(shown!, ORIGIN)).toBe(shown);
  });
});
