/**
 * `taskscope proxy <upstream-url>`'s command line. `${VAR}` in a `--header` value is read from the environment
 * here, when the proxy starts, so that a token need not appear in `ps`.
 */
import { parseExtraHeader, type ExtraHeader } from '../../devserver/proxy/headers.js';
import { PROXY_NAME } from '../../devserver/proxy/route.js';
import { REPORT_OPTIONS, reportArgs } from '../check/args.js';
import type { ProxyReportArgs } from './write-report.js';
import { UsageError, parsePort, readArgs } from '../start/args.js';

export interface ProxyArgs {
  help: boolean;
  upstream: string;
  name: string;
  headers: ExtraHeader[];
  port?: number;
  open: boolean;
  /** The client report files, written when the proxy stops (docs/cli.md). */
  report: ProxyReportArgs;
}

export const PROXY_USAGE = `Usage:
  taskscope proxy <upstream-url> [--name NAME] [--header 'Name: value']... [--port N] [--no-open]
                  [--junit FILE] [--json FILE] [--markdown FILE] [--trace FILE] [--fail-on fail|warn] [--baseline FILE]
  taskscope proxy --stdio [name=NAME] [--env KEY=VALUE]... [--cwd DIR] [--port N] [--open] -- <command> [args...]

Starts Taskscope and a client endpoint, http://127.0.0.1:PORT/proxy/NAME/mcp, that forwards every request to the
upstream MCP server (Streamable HTTP) and every answer back unchanged. Point your MCP client (an agent host, an
IDE, your own client) at the client endpoint instead of the server.

  upstream-url          the server's MCP endpoint, e.g. https://mcp.example.com/mcp
  --name NAME           the endpoint's name, [a-z0-9-] (default: the upstream's host name)
  --header 'K: V'       add this header to every request to the upstream, in place of the client's
                        (repeatable); \${VAR} in the value is read from the environment variable VAR, so a
                        token stays out of ps: --header 'Authorization: Bearer \${MCP_TOKEN}'
  --port N              the port to listen on (default 5173, or $PORT; 0 picks a free one)
  --open, --no-open     open the browser on the page, or not (default: open)
  --junit FILE          each client judged by the client rules: a JUnit testsuite per client, a testcase per rule
  --json FILE           the same as JSON (format taskscope-check, version 2: docs/cli.md)
  --markdown FILE       the same as Markdown
  --trace FILE          each client session as a Taskscope trace (FILE, then FILE-2…): open it in the page,
                        or serve it with taskscope serve to answer a client as the server did
  --fail-on LEVEL       fail (default) or warn: with warn, a SHOULD broken fails the run too
  --baseline FILE       client rules expected to fail (JSON: {"expectedFailures": ["rule-id", …]})
  -h, --help            this text

Ctrl-C (or SIGTERM) stops it; the report files are written then. Exit codes: 0 stopped and no client rule
failed; 1 a client rule failed (or a baseline entry is stale, or no client was seen), or it could not listen;
2 a mistake in the command.`;

/** The upstream's host name as a proxy name: lower case, [a-z0-9-], at most 63 characters. */
export function nameFromUrl(url: URL): string {
  const name = url.hostname
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return name === '' ? 'upstream' : name;
}

/** Reads argv (after `proxy`); throws UsageError for anything the person must fix. */
export function parseProxyArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ProxyArgs {
  const { values, positionals } = readArgs(argv, {
    help: { type: 'boolean', short: 'h' },
    name: { type: 'string' },
    header: { type: 'string', multiple: true },
    port: { type: 'string' },
    open: { type: 'boolean' },
    'no-open': { type: 'boolean' },
    ...REPORT_OPTIONS,
    trace: { type: 'string' },
  });
  const help = values.help ?? false;
  if (help) return { help, upstream: '', name: '', headers: [], open: false, report: { failOn: 'fail' } };
  const raw = positionals[0];
  if (raw === undefined || positionals.length > 1)
    throw new UsageError(
      positionals.length === 0
        ? 'Name the upstream server: taskscope proxy https://mcp.example.com/mcp'
        : `One upstream URL (got ${positionals.map((p) => JSON.stringify(p)).join(', ')})`,
    );
  if (values.open && values['no-open']) throw new UsageError('--open and --no-open together: pick one');
  let upstream: URL;
  try {
    upstream = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new UsageError(
      `${JSON.stringify(raw)} is not a URL: give the server's endpoint, e.g. http://127.0.0.1:3001/mcp`,
    );
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:')
    throw new UsageError(
      `${raw}: the proxy forwards to http(s) servers; for a stdio server use taskscope proxy --stdio`,
    );
  upstream.hash = '';
  const name = values.name ?? nameFromUrl(upstream);
  if (!PROXY_NAME.test(name)) throw new UsageError(`--name ${name}: use lower-case letters, digits and -`);
  const headers: ExtraHeader[] = [];
  for (const given of values.header ?? []) {
    let header: ExtraHeader;
    try {
      header = parseExtraHeader(given, env);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    // A repeated name: the last one given wins, as for the client's.
    const at = headers.findIndex((h) => h.name.toLowerCase() === header.name.toLowerCase());
    if (at >= 0) headers.splice(at, 1);
    headers.push(header);
  }
  const args: ProxyArgs = {
    help,
    upstream: upstream.href,
    name,
    headers,
    open: values['no-open'] ? false : (values.open ?? true),
    report: { ...reportArgs(values), ...(values.trace !== undefined ? { trace: values.trace } : {}) },
  };
  if (values.port !== undefined) args.port = parsePort(values.port, '--port');
  return args;
}
