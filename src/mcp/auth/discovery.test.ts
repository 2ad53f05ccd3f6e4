import { describe, expect, it } from 'vitest';
import { endpointRefusal, isPrivateHost } from './discovery';

const host = (url: string) => new URL(url).hostname;

describe('isPrivateHost', () => {
  it('sees loopback and private addresses in every form the URL parser normalises', () => {
    for (const url of [
      'https://localhost/',
      'https://a.localhost/',
      'https://127.0.0.1/',
      'https://2130706433/',
      'https://0x7f.1/',
      'https://0.0.0.0/',
      'https://10.1.2.3/',
      'https://172.16.0.1/',
      'https://192.168.1.1/',
      'https://169.254.169.254/',
      'https://100.64.0.1/',
      'https://[::1]/',
      'https://[::]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:10.0.0.1]/',
      'https://[fd00::1]/',
      'https://[fc00::1]/',
      'https://[fe80::1]/',
    ])
      expect(isPrivateHost(host(url)), url).toBe(true);
  });

  it('leaves public names and addresses alone, names starting with fc or fd included', () => {
    for (const url of [
      'https://fdic.gov/',
      'https://fc.example/',
      'https://auth.example.com/',
      'https://8.8.8.8/',
      'https://172.32.0.1/',
      'https://[2001:db8::1]/',
      'https://[::ffff:8.8.8.8]/',
    ])
      expect(isPrivateHost(host(url)), url).toBe(false);
  });
});

describe('endpointRefusal', () => {
  it('refuses a remote receiver’s metadata that points at this machine, and plain http anywhere remote', () => {
    const remote = 'https://mcp.example.com/mcp';
    expect(endpointRefusal('https://[::ffff:127.0.0.1]/token', remote)).toMatch(/private network/);
    expect(endpointRefusal('http://auth.example.com/token', remote)).toMatch(/not https/);
    expect(endpointRefusal('https://auth.example.com/token', remote)).toBeUndefined();
    expect(endpointRefusal('http://127.0.0.1:3000/token', 'http://127.0.0.1:3000/mcp')).toBeUndefined();
  });
});
