/**
 * `taskscope proxy --stdio`'s command line. The server's command, `name=`, `--env` and `--cwd` are read as
 * `taskscope --stdio` reads them (start/args.ts); what is the proxy's own is the page's port and `--open`.
 */
import type { StdioCommand } from '../../devserver/stdio/child.js';
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
}

export const STDIO_PROXY_DEFAULT_PORT = 5199;

export const STDIO_PROXY_USAGE = `Usage:
  taskscope proxy --stdio [name=NAME] [--env KEY=VALUE]... [--cwd DIR] [--port N] [--open] -- <command> [args...]

Runs the stdio MCP server given after -- for a host (put it in the host's config in place of the server's
command) and passes every byte between them unchanged, while Taskscope's page shows what passes. The server's
stdout is the only thing on stdout; everything Taskscope says, and the server's stderr, goes to stderr.

  name=NAME          the server's name on the page; defaults to the package or script it runs
  --env KEY=VALUE    set in the server's environment (repeatable); it gets only HOME, PATH, SHELL, TERM, USER
                     and LOGNAME from the host's besides, as MCP clients do
  --cwd DIR          the server's working directory
  --port N           the page's port, or the next free one after it (default ${STDIO_PROXY_DEFAULT_PORT}; 0 picks any free one)
  --open             open the page in the browser (default: not, since a host started it)
  -h, --help         this text

It exits with the server's exit code (128+N when signal N ended it); SIGINT, SIGTERM and SIGHUP are passed on
to the server.`;

/** Reads argv (after `proxy`, `--stdio` included); throws UsageError for anything the person must fix. */
export function parseStdioProxyArgs(argv: readonly string[]): StdioProxyArgs | { help: true } {
  const { tokens, command } = splitAtCommand(argv);
  const { values, positionals } = readArgs(tokens, {
    help: { type: 'boolean', short: 'h' },
    port: { type: 'string' },
    open: { type: 'boolean' },
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
  };
}
