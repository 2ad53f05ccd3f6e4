import { describe, expect, it } from 'vitest';
import { UsageError, parseStartArgs } from './args';

describe('taskscope start arguments', () => {
  it('defaults: loopback, open the browser, the demo receiver', () => {
    expect(parseStartArgs([])).toMatchObject({
      host: '127.0.0.1',
      open: true,
      allowRemote: false,
      help: false,
    });
    expect(parseStartArgs(['--no-open']).open).toBe(false);
    expect(parseStartArgs(['--port', '0']).port).toBe(0);
  });

  it('a receiver URL, with http:// added when no scheme is given, or a path on our own origin', () => {
    expect(parseStartArgs(['127.0.0.1:3001/mcp']).receiverUrl).toBe('http://127.0.0.1:3001/mcp');
    expect(parseStartArgs(['https://a.example/mcp']).receiverUrl).toBe('https://a.example/mcp');
    expect(parseStartArgs(['/demo/mcp-2026']).receiverUrl).toBe('/demo/mcp-2026');
    expect(() => parseStartArgs(['ftp://a.example/'])).toThrow(/not a receiver URL/);
  });

  it('--stdio: the command after -- is the server’s, its flags never read as ours', () => {
    const args = parseStartArgs([
      '--stdio',
      '--env',
      'A=1',
      '--env',
      'B=x=y',
      '--',
      'npx',
      '-y',
      '@modelcontextprotocol/server-everything',
      '--port',
      '9',
    ]);
    expect(args.stdio).toEqual({
      name: 'server-everything',
      command: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-everything', '--port', '9'],
        env: { A: '1', B: 'x=y' },
        cwd: undefined,
      },
    });
    expect(args.port).toBeUndefined();
    expect(
      parseStartArgs(['--stdio', 'name=mine', '--cwd', '/srv', '--', 'node', 'build/index.js']).stdio,
    ).toMatchObject({
      name: 'mine',
      command: { command: 'node', args: ['build/index.js'], cwd: '/srv' },
    });
    expect(parseStartArgs(['--stdio=name=other', '--', 'uvx', 'weather']).stdio?.name).toBe('other');
    // A URL after -- is the server's argument, not the page's receiver.
    const withUrl = parseStartArgs(['--stdio', '--', 'node', 'x', 'http://a/']);
    expect(withUrl.receiverUrl).toBeUndefined();
    expect(withUrl.stdio?.command.args).toEqual(['x', 'http://a/']);
  });

  it('refuses what it cannot do, each with a sentence', () => {
    const cases: Array<[string[], RegExp]> = [
      [['--stdio'], /needs the server's command after --/],
      [['--', 'node', 'x.js'], /runs only with --stdio/],
      [['--stdio', 'mine', '--', 'node'], /--stdio mine: name it as --stdio name=mine/],
      [['--stdio', 'name=a/b', '--', 'node'], /goes into a URL path/],
      [['--env', 'A=1'], /for the stdio server: add --stdio/],
      [['--stdio', '--env', 'no-equals', '--', 'node'], /KEY=VALUE/],
      [['--host', '192.168.1.5'], /unless you also pass --allow-remote/],
      [['--allow-remote', '--stdio', '--', 'node'], /refused with --allow-remote/],
      [['--open', '--no-open'], /pick one/],
      [['--port', '1.5'], /whole number/],
      [['http://a/', '--stdio', '--', 'node'], /not both/],
    ];
    for (const [argv, message] of cases) {
      expect(() => parseStartArgs(argv), argv.join(' ')).toThrow(UsageError);
      expect(() => parseStartArgs(argv), argv.join(' ')).toThrow(message);
    }
  });

  it('--allow-remote lets another host through, loopback names are kept as addresses', () => {
    expect(parseStartArgs(['--allow-remote', '--host', '0.0.0.0'])).toMatchObject({
      host: '0.0.0.0',
      allowRemote: true,
    });
    expect(parseStartArgs(['--host', 'localhost']).host).toBe('127.0.0.1');
    expect(parseStartArgs(['--host', '::1']).host).toBe('::1');
  });
});
