import { describe, expect, it } from 'vitest';
import { endpointRefusal } from './discovery';

describe('endpointRefusal', () => {
  it('refuses a remote receiver’s metadata that points at this machine, and plain http anywhere remote', () => {
    const remote = 'https://mcp.example.com/mcp';
    expect(endpointRefusal('https://[::ffff:127.0.0.1]/token', remote)).toMatch(/private network/);
    expect(endpointRefusal('http://auth.example.com/token', remote)).toMatch(/not https/);
    expect(endpointRefusal('https://auth.example.com/token', remote)).toBeUndefined();
    expect(endpointRefusal('http://127.0.0.1:3000/token', 'http://127.0.0.1:3000/mcp')).toBeUndefined();
  });
});
