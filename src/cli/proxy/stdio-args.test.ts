import { describe, expect, it } from 'vitest';
import { UsageError } from '../start/args';
import { STDIO_PROXY_DEFAULT_PORT, parseStdioProxyArgs } from './stdio-args';

describe('taskscope proxy --stdio arguments', () => {
  it('the command after -- is the server’s, its flags never read as ours; the page on 5199, not opened', () => {
    expect(
      parseStdioProxyArgs(['--stdio', '--', 'node', 'weather/build/index.js', '--port', '9', '--open']),
    ).toEqual({
      help: false,
      name: 'weather',
      command: {
        command: 'node',
        args: ['weather/build/index.js', '--port', '9', '--open'],
        env: {},
        cwd: undefined,
      },
      port: STDIO_PROXY_DEFAULT_PORT,
      open: false,
      report: { failOn: 'fail' },
    });
  });

  it('name=, --env, --cwd as taskscope --stdio reads them; --port and --open are the page’s', () => {
    const args = parseStdioProxyArgs([
      '--stdio',
      'name=files',
      '--env',
      'A=1',
      '--env',
      'B=x=y',
      '--cwd',
      '/srv',
      '--port',
      '6000',
      '--open',
      '--',
      'npx',
      '-y',
      '@scope/server-files',
    ]);
    expect(args).toEqual({
      help: false,
      name: 'files',
      command: {
        command: 'npx',
        args: ['-y', '@scope/server-files'],
        env: { A: '1', B: 'x=y' },
        cwd: '/srv',
      },
      port: 6000,
      open: true,
      report: { failOn: 'fail' },
    });
    expect(parseStdioProxyArgs(['--stdio', '--', 'npx', '-y', '@scope/server-files'])).toMatchObject({
      name: 'server-files',
    });
    expect(parseStdioProxyArgs(['--stdio', '--port', '0', '--', 'x'])).toMatchObject({ port: 0 });
  });

  it('--help, with or without the rest', () => {
    expect(parseStdioProxyArgs(['--stdio', '--help'])).toEqual({ help: true });
    expect(parseStdioProxyArgs(['--stdio', '-h', '--', 'node', 'x.js'])).toEqual({ help: true });
  });

  it('mistakes say what to type', () => {
    const fails = (argv: string[], message: RegExp) => {
      expect(() => parseStdioProxyArgs(argv)).toThrow(UsageError);
      expect(() => parseStdioProxyArgs(argv)).toThrow(message);
    };
    fails(['--stdio'], /needs the server's command after --, e\.g\. taskscope proxy --stdio -- /);
    fails(['--stdio', 'node', 'x.js'], /the server's command goes after --/);
    fails(['--stdio', 'files', '--', 'x'], /name it as --stdio name=NAME|goes after --/);
    fails(['--stdio', 'name=a/b', '--', 'x'], /goes into a URL path/);
    fails(['--stdio', '--env', 'NOPE', '--', 'x'], /KEY=VALUE/);
    fails(['--stdio', '--port', 'x', '--', 'x'], /--port x: a port is a whole number/);
    fails(['--stdio', '--no-open', '--', 'x'], /Unknown option '--no-open'/);
    fails(['--', 'node', 'x.js'], /needs --stdio/);
  });
});
