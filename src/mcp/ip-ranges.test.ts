import { describe, expect, it } from 'vitest';
import { addressKind, isPrivateHost } from './ip-ranges';

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

describe('addressKind', () => {
  it('classifies addresses as DNS writes them, mapped and embedded forms included', () => {
    const kinds: Array<[string, string]> = [
      ['127.0.0.1', 'loopback'],
      ['::1', 'loopback'],
      ['::', 'loopback'],
      ['0.0.0.0', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['169.254.169.254', 'link-local'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['::ffff:a9fe:a9fe', 'link-local'],
      ['64:ff9b::a9fe:a9fe', 'link-local'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['febf:ffff::1', 'link-local'],
      ['100.100.100.200', 'metadata'],
      ['fd00:ec2::254', 'metadata'],
      ['10.0.0.1', 'private'],
      ['100.64.0.1', 'private'],
      ['fd12::1', 'private'],
      ['::1:0:0:1', 'private'],
      ['::ffff:1', 'private'],
      ['fec0::1', 'other'],
      ['2001:db8::1', 'other'],
      ['8.8.8.8', 'other'],
      ['auth.example.com', 'other'],
    ];
    for (const [address, kind] of kinds) expect(addressKind(address), address).toBe(kind);
  });

  it('reads no malformed literal as an address', () => {
    for (const text of ['1.2.3', '1.2.3.256', '1:2:3:4:5:6:7:8:9', '1::2::3', '::fffff', '1.2.3.4::', 'g::1'])
      expect(addressKind(text), text).toBe('other');
  });
});
