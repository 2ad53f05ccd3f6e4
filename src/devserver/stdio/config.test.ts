import { describe, expect, it } from 'vitest';
import { ConfigError, nameFor, readServersConfig } from './config';

describe('mcpServers config files', () => {
  it('reads stdio entries (command, args, env, cwd from the file’s folder) and HTTP ones (url, headers)', () => {
    const read = readServersConfig(
      JSON.stringify({
        mcpServers: {
          everything: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-everything'],
            env: { K: 'v' },
          },
          local: { command: 'node', args: ['build/index.js'], cwd: 'server' },
          remote: { type: 'http', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer x' } },
        },
      }),
      '/home/me/project/servers.json',
    );
    expect(read.stdio).toEqual([
      {
        name: 'everything',
        command: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-everything'],
          env: { K: 'v' },
          cwd: undefined,
        },
      },
      {
        name: 'local',
        command: { command: 'node', args: ['build/index.js'], env: {}, cwd: '/home/me/project/server' },
      },
    ]);
    expect(read.http).toEqual([
      { name: 'remote', url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer x' } },
    ]);
  });

  it('says what is wrong, naming the file and the entry', () => {
    const cases: Array<[string, RegExp]> = [
      ['{', /f.json: not JSON/],
      ['{"servers":{}}', /expected \{"mcpServers"/],
      ['{"mcpServers":{"a":{"args":[]}}}', /mcpServers.a: needs "command"/],
      ['{"mcpServers":{"a b":{"command":"x"}}}', /goes into a URL path/],
      ['{"mcpServers":{"a":{"command":"x","args":"not-a-list"}}}', /mcpServers.a: needs "command"/],
      ['{"mcpServers":{"a":{"url":"file:///etc/passwd"}}}', /must be http/],
      ['{"mcpServers":{"a":{"type":"sse","url":"http://x/sse"}}}', /old SSE transport/],
    ];
    for (const [text, message] of cases) {
      expect(() => readServersConfig(text, 'f.json')).toThrow(ConfigError);
      expect(() => readServersConfig(text, 'f.json')).toThrow(message);
    }
  });

  it('names a command nobody named after the package or script it runs', () => {
    expect(nameFor('npx', ['-y', '@modelcontextprotocol/server-everything'])).toBe('server-everything');
    expect(nameFor('node', ['/x/server-everything/dist/index.js', 'stdio'])).toBe('server-everything');
    expect(nameFor('uvx', ['mcp-server-fetch'])).toBe('mcp-server-fetch');
    expect(nameFor('npx', ['-y', '@scope/pkg@1.2.3'])).toBe('pkg');
    expect(nameFor('/usr/local/bin/my-mcp', [])).toBe('my-mcp');
    expect(nameFor('node', ['build/index.js'])).toBe('index');
  });
});
