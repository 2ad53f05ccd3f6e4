/**
 * `taskscope proxy --stdio`'s command line. The server's command, `name=`, `--env` and `--cwd` are read as
 * `taskscope --stdio` reads them (start/args.ts); what is the proxy's own is the page's port and `--open`.
 */
import type { StdioCommand } from '../../devserver/stdio/child.js';
import { REPORT_OPTIONS, reportArgs } from '../check/args.js';
import type { ProxyReportArgs } from './write-report.js';
import {
  STDIO_OPTIONS,
  UsageError,
  parsePort,
  readArgs,
  splitAtCommand,
  stdioServer,
} from '../start/args.js';

export interface StdioProxyArgs {
  help: false;
  /** The server's name, for the page and the messages. */
  name: string;
  command: StdioCommand;
  /** The first port tried for the page; the next free one after it when it is in use. */
  port: number;
  open: boolean;
  /** The client report files (docs/cli.md), written when the server exits or the host's stdin ends. */
  report: ProxyReportArgs;
}

export const STDIO_PROXY_DEFAULT_PORT = 5199;

export const STDIO_PROXY_USAGE = `Usage:
  taskscope proxy --stdio [name=NAME] [--env KEY=VALUE]... [--cwd DIR] [--port N] [--open] -- <command> [args...]

Runs the stdio MCP server given after -- for a host (put it in the host's config in place of the server's
command) and passes every byte between them unchanged, while Taskscope's page shows what passes. The server's
stdout is the only thing on stdout; everything Taskscope says, and the server's stderr, goes to stderr.

  name=NAME          the server's name on the page; defaults to the package or script it runs
  --env KEY=VALUE    set in the server's environment (repeatable), over the environment the host gave the
                     proxy (its config's "env" reaches the server as it would without the proxy)
  --cwd DIR          the server's working directory
  --port N           the page's port, or the next free one after it (default ${STDIO_PROXY_DEFAULT_PORT}; 0 picks any free one)
  --open             open the page in the browser (default: not, since a host started it)
  --junit FILE       the client judged by the client rules: one JUnit testcase per rule
  --json FILE        the same as JSON (format taskscope-check, version 2: docs/cli.md)
  --markdown FILE    the same as Markdown
  --trace FILE       the client session as a Taskscope trace: open it in the page, or taskscope serve it
  --fail-on LEVEL    fail (default) or warn: what the report files count as failing
  --baseline FILE    client rules expected to fail (JSON: {"expectedFailures": ["rule-id", …]})
  -h, --help         this text

It exits with the server's exit code (128+N when signal N ended it), whatever the client's verdict (hosts
depend on the code; the verdict is in the report files, written when the server exits and within a second of
the host's stdin ending); SIGINT, SIGTERM and SIGHUP are passed on to the server.`;

/** Reads argv (after `proxy`, `--stdio` included); throws UsageError for anything the person must fix. */
export function parseStdioProxyArgs(argv: readonly string[]): StdioProxyArgs | { help: true } {
  const { tokens, command } = splitAtCommand(argv);
  const { values, positionals } = readArgs(tokens, {
    help: { type: 'boolean', short: 'h' },
    port: { type: 'string' },
    open: { type: 'boolean' },
    ...REPORT_OPTIONS,
    trace: { type: 'string' },
    ...STDIO_OPTIONS,
  });
  if (values.help) return { help: true };
  if (positionals.length > 0)
    throw new UsageError(
      `${JSON.stringify(positionals[0])}: the server's command goes after --, e.g. taskscope proxy --stdio -- node build/index.js`,
    );
  if (values.stdio === undefined) throw new UsageError('taskscope proxy over stdio needs --stdio');
  const server = stdioServer(values, command, 'taskscope proxy');
  if (!server) throw new UsageError('taskscope proxy over stdio needs --stdio');
  return {
    help: false,
    name: server.name,
    command: server.command,
    port: values.port === undefined ? STDIO_PROXY_DEFAULT_PORT : parsePort(values.port, '--port'),
    open: values.open ?? false,
    report: { ...reportArgs(values), ...(values.trace !== undefined ? { trace: values.trace } : {}) },
  };
}
