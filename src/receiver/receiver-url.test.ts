import { describe, expect, it } from 'vitest';
import { normaliseReceiverUrl } from './receiver-url';

const page = 'http://127.0.0.1:5173';
const read = (raw: string) => normaliseReceiverUrl(raw, page)?.toString() ?? null;

describe('normaliseReceiverUrl', () => {
  it('gives a URL typed without a scheme http:// on loopback and https:// elsewhere', () => {
    expect(read('127.0.0.1:3001/mcp')).toBe('http://127.0.0.1:3001/mcp');
    expect(read('localhost:3001/mcp')).toBe('http://localhost:3001/mcp');
    expect(read('[::1]:3001/mcp')).toBe('http://[::1]:3001/mcp');
    expect(read('mcp.example.com/mcp')).toBe('https://mcp.example.com/mcp');
    expect(read('  example.com  ')).toBe('https://example.com/');
  });

  it('keeps full URLs and paths on the page’s own origin as they are', () => {
    expect(read('https://a.example/mcp')).toBe('https://a.example/mcp');
    expect(read('/demo/mcp')).toBe('http://127.0.0.1:5173/demo/mcp');
  });

  it('refuses anything but http(s)', () => {
    expect(read('javascript:alert(1)')).toBeNull();
    expect(read('file:///etc/passwd')).toBeNull();
    expect(read('ftp://a.example/')).toBeNull();
    expect(read('')).toBeNull();
  });
});
