/** `taskscope check`'s command line (Node's util.parseArgs); a mistake is a UsageError (exit 2). */
import type { EraChoice } from '../../mcp';
import { parseHeader } from '../connect';
import type { StdioReceiver } from '../../devserver/stdio/bridge';
import { STDIO_OPTIONS, UsageError, readArgs, splitAtCommand, stdioServer } from '../start/args';

export { UsageError };

/** The report files and the verdict's options, the same for `check` and `proxy`. */
export interface ReportArgs {
  junit?: string;
  markdown?: string;
  json?: string;
  failOn: 'fail' | 'warn';
  baseline?: string;
}

export const REPORT_OPTIONS = {
  junit: { type: 'string' },
  markdown: { type: 'string' },
  json: { type: 'string' },
  'fail-on': { type: 'string' },
  baseline: { type: 'string' },
} as const;

export function reportArgs(values: {
  junit?: string;
  markdown?: string;
  json?: string;
  'fail-on'?: string;
  baseline?: string;
}): ReportArgs {
  return {
    junit: values.junit,
    markdown: values.markdown,
    json: values.json,
    failOn: failOn(values['fail-on']),
    baseline: values.baseline,
  };
}

export interface CheckArgs extends ReportArgs {
  help: boolean;
  /** The receiver's URL, or `stdio:NAME` for a stdio server (then `stdio` says which). */
  url: string;
  stdio?: StdioReceiver;
  era: EraChoice;
  tool?: string;
  args?: Record<string, unknown>;
  headers: Record<string, string>;
  timeoutMs: number;
  trace?: string;
}

export const CHECK_USAGE = `Usage:
  taskscope check <receiver-url> [options]
  taskscope check --stdio [name=NAME] [--env K=V]... [--cwd DIR] [options] -- <command> [args...]

Runs the report card against an MCP receiver (Streamable HTTP): the active check (it starts and cancels a few
tasks of one tool) and every passive rule, judged from what it observed. Prints the card; exits with its verdict.

  --protocol P        auto (default: found out as the page does), 2025-11-25 or 2026-07-28
  --tool NAME         the tool to run as a task (default: the first one the check can fill with defaults)
  --args JSON         arguments for --tool (a JSON object), instead of its defaults
  --header 'K: V'     an HTTP header on every request (repeatable), e.g. --header 'Authorization: Bearer …'
  --timeout S         give up on a receiver that does not answer after S seconds (default 30)
  --junit FILE        one JUnit testcase per rule (failures and skips as JUnit readers expect)
  --markdown FILE     the card as Markdown, the same as the page's export
  --json FILE         the card as JSON (format taskscope-check, version 2: docs/cli.md)
  --trace FILE        the run as a Taskscope trace, openable in the page
  --fail-on LEVEL     fail (default) or warn: with warn, a SHOULD broken fails the run too
  --baseline FILE     rules expected to fail (JSON: {"expectedFailures": ["rule-id", …]}); one that no
                      longer fails makes the run fail as stale
  --stdio [name=NAME] run the stdio MCP server given after -- for the check, and stop it after
  --env KEY=VALUE     set in the stdio server's environment (repeatable)
  --cwd DIR           the stdio server's working directory
  -h, --help          this text

Exit codes: 0 every rule passes; 1 a rule failed (or a baseline entry is stale); 2 a mistake in the command;
3 incomplete (the check could not run: no tool to use, stopped); 4 the receiver is unreachable or refused.`;

export function parseCheckArgs(argv: readonly string[]): CheckArgs {
  const { tokens, command } = splitAtCommand(argv);
  const parsed = readArgs(tokens, {
    help: { type: 'boolean', short: 'h' },
    protocol: { type: 'string' },
    tool: { type: 'string' },
    args: { type: 'string' },
    header: { type: 'string', multiple: true },
    timeout: { type: 'string' },
    trace: { type: 'string' },
    ...REPORT_OPTIONS,
    ...STDIO_OPTIONS,
  });
  const { values, positionals } = parsed;
  if (values.help) return { help: true, url: '', era: 'auto', headers: {}, timeoutMs: 0, failOn: 'fail' };
  return {
    help: false,
    ...receiverOrStdio(positionals, values, command, 'taskscope check'),
    era: protocol(values.protocol),
    tool: values.tool,
    args: values.args === undefined ? undefined : jsonObject(values.args, values.tool),
    headers: headers(values.header ?? []),
    timeoutMs: timeout(values.timeout),
    trace: values.trace,
    ...reportArgs(values),
  };
}

/** The receiver: its URL, or a stdio server (--stdio -- cmd…), not both. Shared with `watch`. */
export function receiverOrStdio(
  positionals: readonly string[],
  values: { stdio?: string; env?: string[]; cwd?: string; header?: string[] },
  command: readonly string[],
  invocation: string,
): { url: string; stdio?: StdioReceiver } {
  const stdio = stdioServer(values, command, invocation);
  if (!stdio) return { url: receiverUrl(positionals) };
  if (positionals.length > 0) throw new UsageError('give a receiver URL or --stdio -- <command>, not both');
  if (values.header?.length)
    throw new UsageError('--header is for HTTP receivers: a stdio server takes --env instead');
  return { url: `stdio:${stdio.name}`, stdio };
}

/** The receiver URL: exactly one, http(s). */
export function receiverUrl(positionals: readonly string[]): string {
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? 'the receiver URL is missing, e.g. http://127.0.0.1:3001/mcp'
        : `one receiver URL (got ${positionals.length})`,
    );
  const text = positionals[0] ?? '';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${text} is not a URL (e.g. http://127.0.0.1:3001/mcp)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${text}: only http:// and https:// receivers`);
  return url.href;
}

export function protocol(text: string | undefined): EraChoice {
  if (text === undefined || text === 'auto') return 'auto';
  if (text === '2025-11-25' || text === '2026-07-28') return text;
  throw new UsageError(`--protocol ${text}: auto, 2025-11-25 or 2026-07-28`);
}

export function jsonObject(text: string, tool: string | undefined): Record<string, unknown> {
  if (tool === undefined) throw new UsageError('--args needs --tool: the arguments are for that tool');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--args is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError('--args must be a JSON object, e.g. {"durationMs": 2000}');
  return value as Record<string, unknown>;
}

export function headers(given: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const text of given) {
    const header = parseHeader(text);
    if (!header) throw new UsageError(`--header ${text}: write it as 'Name: value'`);
    out[header[0]] = header[1];
  }
  return out;
}

export function timeout(text: string | undefined, fallbackS = 30): number {
  if (text === undefined) return fallbackS * 1000;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400)
    throw new UsageError(`--timeout ${text}: a number of seconds, more than 0 and at most 86400`);
  return Math.round(seconds * 1000);
}

function failOn(text: string | undefined): 'fail' | 'warn' {
  if (text === undefined || text === 'fail') return 'fail';
  if (text === 'warn') return 'warn';
  throw new UsageError(`--fail-on ${text}: fail or warn`);
}
