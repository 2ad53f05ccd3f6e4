/**
 * `taskscope`'s command line, read with Node's util.parseArgs. Everything after the first `--` is the stdio
 * server's own command, never read as Taskscope's flags. A mistake becomes a UsageError saying what to type.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type ArgOptions = NonNullable<ParseArgsConfig['options']>;
type StrictConfig<O extends ArgOptions> = {
  args: string[];
  allowPositionals: true;
  strict: true;
  options: O;
};
type ReadArgs<O extends ArgOptions> = ReturnType<typeof parseArgs<StrictConfig<O>>>;
import { ConfigError, checkName, nameFor, parseEnvAssignment } from '../../devserver/stdio/config.js';
import type { StdioCommand } from '../../devserver/stdio/child.js';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** util.parseArgs, strict, with its mistakes as UsageErrors; every taskscope command reads its flags with it. */
export function readArgs<const O extends ArgOptions>(argv: readonly string[], options: O): ReadArgs<O> {
  try {
    return parseArgs<StrictConfig<O>>({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options,
    });
  } catch (error) {
    // Node's advice for an unknown option (put it after --) would be wrong here: after -- is the server's command.
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
}

export interface StartArgs {
  help: boolean;
  version: boolean;
  /** The receiver the page opens on, as given (a URL, or a path on Taskscope's own origin). */
  receiverUrl?: string;
  port?: number;
  host: string;
  allowRemote: boolean;
  open: boolean;
  dev: boolean;
  stdio?: { name: string; command: StdioCommand };
  config?: string;
}

export const USAGE = `Usage:
  taskscope [receiver-url] [options]
  taskscope --stdio [name=NAME] [--env KEY=VALUE]... [--cwd DIR] [options] -- <command> [args...]
  taskscope --config FILE [options]

Opens Taskscope, the browser devtools for MCP tasks, on http://127.0.0.1:5173/ with a demo receiver built in.

  receiver-url          open the page on this receiver (Streamable HTTP), e.g. http://127.0.0.1:3001/mcp
  --stdio [name=NAME]   run a stdio MCP server (the command after --), one process per page connection,
                        offered to the page at /stdio/NAME/mcp; NAME defaults to the package or script it runs
  --env KEY=VALUE       set in the stdio server's environment (repeatable); it gets only HOME, PATH, SHELL,
                        TERM, USER and LOGNAME from yours besides, as MCP clients do
  --cwd DIR             the stdio server's working directory
  --config FILE         servers from an "mcpServers" file (command/args/env/cwd for stdio, url/headers for HTTP);
                        read only when named here
  --port N              the port to listen on (default 5173, or $PORT; 0 picks a free one)
  --host HOST           the address to listen on (default 127.0.0.1; loopback only without --allow-remote)
  --allow-remote        let other machines reach it (with --host 0.0.0.0 or an address of this machine): the
                        page then asks for the token printed here, and --stdio is refused
  --open, --no-open     open the browser, or not (default: open)
  -h, --help            this text
  -v, --version         the version

Ctrl-C stops the server and every stdio server it started.`;

const LOOPBACK_HOSTS: Record<string, string> = {
  '127.0.0.1': '127.0.0.1',
  localhost: '127.0.0.1',
  '::1': '::1',
  '[::1]': '::1',
};

/** Reads argv (after the command name); throws UsageError for anything that needs the person to fix it. */
export function parseStartArgs(argv: readonly string[]): StartArgs {
  const { tokens, command } = splitAtCommand(argv);
  const parsed = readArgs(tokens, {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
    port: { type: 'string' },
    host: { type: 'string' },
    'allow-remote': { type: 'boolean' },
    open: { type: 'boolean' },
    'no-open': { type: 'boolean' },
    dev: { type: 'boolean' },
    ...STDIO_OPTIONS,
    config: { type: 'string' },
  });
  const { values, positionals } = parsed;
  if (positionals.length > 1)
    throw new UsageError(
      `One receiver URL at most (got ${positionals.map((p) => JSON.stringify(p)).join(', ')}); a stdio command goes after --`,
    );
  const args: StartArgs = {
    help: values.help ?? false,
    version: values.version ?? false,
    host: '127.0.0.1',
    allowRemote: values['allow-remote'] ?? false,
    open: values['no-open'] ? false : (values.open ?? true),
    dev: values.dev ?? false,
    config: values.config,
  };
  if (values.open && values['no-open']) throw new UsageError('--open and --no-open together: pick one');
  if (values.port !== undefined) args.port = parsePort(values.port, '--port');
  if (values.host !== undefined) {
    const loopback = LOOPBACK_HOSTS[values.host.toLowerCase()];
    if (loopback === undefined && !args.allowRemote)
      throw new UsageError(
        `--host ${values.host}: Taskscope listens on this machine only (127.0.0.1, localhost, ::1) unless you also pass --allow-remote`,
      );
    args.host = loopback ?? values.host;
  }
  const receiver = positionals[0];
  if (receiver !== undefined && values.stdio === undefined) args.receiverUrl = checkReceiverUrl(receiver);

  args.stdio = stdioServer(values, command);
  if (args.allowRemote && args.stdio)
    throw new UsageError(
      '--stdio is refused with --allow-remote: a page that others can reach must not be able to talk to a process on this machine',
    );
  if (args.stdio && receiver !== undefined) {
    if (/^[A-Za-z0-9_.-]+$/.test(receiver) && !receiver.includes('.'))
      throw new UsageError(`--stdio ${receiver}: name it as --stdio name=${receiver}`);
    throw new UsageError('Give a receiver URL or --stdio, not both: the page opens on one of them');
  }
  return args;
}

/** The options every command that can run a stdio server takes. */
export const STDIO_OPTIONS = {
  stdio: { type: 'string' },
  env: { type: 'string', multiple: true },
  cwd: { type: 'string' },
} as const;

/** argv split at the first `--` (the stdio server's command after it), a bare `--stdio` given an empty value. */
export function splitAtCommand(argv: readonly string[]): { tokens: string[]; command: string[] } {
  const split = argv.indexOf('--');
  const own = split < 0 ? [...argv] : argv.slice(0, split);
  const command = split < 0 ? [] : argv.slice(split + 1);
  // `--stdio` takes an optional name=NAME: parseArgs has no optional values, so a bare one gets an empty value.
  const tokens: string[] = [];
  for (let i = 0; i < own.length; i++) {
    const token = own[i] ?? '';
    const next = own[i + 1];
    if (token !== '--stdio') tokens.push(token);
    else if (next?.startsWith('name=')) {
      tokens.push(`--stdio=${next}`);
      i++;
    } else tokens.push('--stdio=');
  }
  return { tokens, command };
}

/** The stdio server `--stdio [name=NAME] [--env K=V]… [--cwd DIR] -- cmd…` names; undefined without --stdio. */
export function stdioServer(
  values: { stdio?: string; env?: string[]; cwd?: string },
  command: readonly string[],
  /** How the command is called, for the examples in the messages. */
  invocation = 'taskscope',
): { name: string; command: StdioCommand } | undefined {
  if (values.stdio === undefined) {
    if (command.length > 0)
      throw new UsageError(
        `A command after -- (${command[0]}) runs only with --stdio: ${invocation} --stdio -- ${command.join(' ')}`,
      );
    if (values.env || values.cwd !== undefined)
      throw new UsageError('--env and --cwd are for the stdio server: add --stdio');
    return undefined;
  }
  if (command.length === 0)
    throw new UsageError(
      `--stdio needs the server's command after --, e.g. ${invocation} --stdio -- npx -y @modelcontextprotocol/server-everything`,
    );
  const given = values.stdio;
  if (given !== '' && !given.startsWith('name='))
    throw new UsageError(`--stdio ${given}: name it as --stdio name=NAME`);
  const [program, ...rest] = command as [string, ...string[]];
  const env: Record<string, string> = {};
  try {
    for (const assignment of values.env ?? []) {
      const [key, value] = parseEnvAssignment(assignment);
      env[key] = value;
    }
    const name = given === '' ? nameFor(program, rest) : checkName(given.slice(5), '--stdio name=');
    return { name, command: { command: program, args: rest, env, cwd: values.cwd } };
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

export function parsePort(raw: string, what: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(port) || port > 65535)
    throw new UsageError(`${what} ${raw}: a port is a whole number from 0 to 65535`);
  return port;
}

function checkReceiverUrl(raw: string): string {
  if (raw.startsWith('/') && !raw.startsWith('//')) return raw;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  try {
    const url = new URL(withScheme);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.toString();
  } catch {
    // said below
  }
  throw new UsageError(
    `${JSON.stringify(raw)} is not a receiver URL: give an http(s) URL such as http://127.0.0.1:3001/mcp`,
  );
}
