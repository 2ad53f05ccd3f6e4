import { describe, expect, it } from 'vitest';
import { UsageError } from '../start/args';
import { nameFromUrl, parseProxyArgs } from './args';

describe('taskscope proxy arguments', () => {
  it('the upstream, its name from the host name, the browser opened by default', () => {
    expect(parseProxyArgs(['https://MCP.Example.com:8443/mcp?x=1'])).toEqual({
      help: false,
      upstream: 'https://mcp.example.com:8443/mcp?x=1',
      name: 'mcp-example-com',
      headers: [],
      open: true,
      report: { failOn: 'fail' },
    });
    expect(
      parseProxyArgs(['http://a.example/mcp', '--junit', 'c.xml', '--json', 'c.json', '--fail-on', 'warn'])
        .report,
    ).toEqual({ junit: 'c.xml', json: 'c.json', failOn: 'warn' });
    expect(parseProxyArgs(['127.0.0.1:3001/mcp', '--no-open', '--port', '0'])).toMatchObject({
      upstream: 'http://127.0.0.1:3001/mcp',
      name: '127-0-0-1',
      open: false,
      port: 0,
    });
    expect(parseProxyArgs(['http://a.example/mcp', '--name', 'mine']).name).toBe('mine');
  });

  it('a host name becomes [a-z0-9-], never empty, at most 63 characters', () => {
    expect(nameFromUrl(new URL('http://[::1]:3000/mcp'))).toBe('1');
    expect(nameFromUrl(new URL('http://under_score.example/'))).toBe('under-score-example');
    // Cut at 63, and no trailing dash left by the cut.
    expect(nameFromUrl(new URL(`http://${'a'.repeat(62)}.b.example/`))).toBe('a'.repeat(62));
  });

  it('--header: repeatable, the last of a name wins, ${VAR} read from the environment', () => {
    const args = parseProxyArgs(
      [
        'http://a.example/mcp',
        '--header',
        'Authorization: Bearer ${MCP_TOKEN}',
        '--header',
        'X-Team: one',
        '--header',
        'x-team: two',
      ],
      { MCP_TOKEN: 'tok-123' },
    );
    expect(args.headers).toEqual([
      { name: 'Authorization', value: 'Bearer tok-123' },
      { name: 'x-team', value: 'two' },
    ]);
  });

  it('refuses what it cannot do, saying what to type', () => {
    const refused = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
      try {
        parseProxyArgs(argv, env);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return (error as Error).message;
      }
      throw new Error(`accepted ${argv.join(' ')}`);
    };
    expect(refused([])).toMatch(/Name the upstream server/);
    expect(refused(['http://a/mcp', 'http://b/mcp'])).toMatch(/One upstream URL/);
    expect(refused(['ftp://a.example/'])).toMatch(/http\(s\) servers/);
    expect(refused(['http://a/mcp', '--name', 'Not Good'])).toMatch(/lower-case letters/);
    expect(refused(['http://a/mcp', '--header', 'Authorization: Bearer ${NOPE}'])).toBe(
      '--header Authorization: the environment variable NOPE is not set',
    );
    expect(refused(['http://a/mcp', '--header', 'no colon'])).toMatch(/give it as 'Name: value'/);
    expect(refused(['http://a/mcp', '--header', 'Host: b.example'])).toMatch(/sets Host itself/);
    expect(refused(['http://a/mcp', '--header', 'Connection: close'])).toMatch(/sets Connection itself/);
    expect(refused(['http://a/mcp', '--open', '--no-open'])).toMatch(/pick one/);
    expect(refused(['http://a/mcp', '--bogus'])).toMatch(/Unknown option '--bogus'/);
  });

  it('--help needs no upstream', () => {
    expect(parseProxyArgs(['--help']).help).toBe(true);
  });
});
