/** `taskscope watch`'s command line; a mistake is a UsageError (exit 2). */
import type { EraChoice } from '../../mcp';
import type { StdioReceiver } from '../../devserver/stdio/bridge';
import { UsageError, headers, jsonObject, protocol, receiverOrStdio, timeout } from '../check/args';
import { STDIO_OPTIONS, readArgs, splitAtCommand } from '../start/args';

export interface WatchArgs {
  help: boolean;
  /** The receiver's URL, or `stdio:NAME` for a stdio server (then `stdio` says which). */
  url: string;
  stdio?: StdioReceiver;
  era: EraChoice;
  tool?: string;
  args: Record<string, unknown>;
  ttl?: number;
  taskId?: string;
  headers: Record<string, string>;
  /** Gives up following after this (exit 7); none by default. */
  timeoutMs?: number;
  /** Gives up reaching the receiver after this (exit 4). */
  connectTimeoutMs: number;
  json: boolean;
  cancelOnExit: boolean;
}

export const WATCH_USAGE = `Usage:
  taskscope watch <receiver-url> --tool NAME [--args JSON] [options]
  taskscope watch <receiver-url> --task ID [options]
  taskscope watch --stdio [name=NAME] [--env K=V]... [--cwd DIR] --tool NAME [options] -- <command> [args...]

Runs a tool as a task (or follows one that exists) and follows it in the terminal with the page's poll
discipline: never sooner than the receiver's pollInterval. A live status line on a terminal, the timeline as
it changes, the result at the end.

  --tool NAME         the tool to run as a task
  --args JSON         its arguments (a JSON object; default {})
  --ttl MS            the ttl to ask for (2025-11-25)
  --task ID           follow a task that exists instead of starting one
  --protocol P        auto (default), 2025-11-25 or 2026-07-28
  --header 'K: V'     an HTTP header on every request (repeatable)
  --timeout S         stop following after S seconds (exit 7); no limit by default
  --connect-timeout S give up on a receiver that does not answer after S seconds (default 30; exit 4)
  --json              one JSON line per event on stdout (status, timeline entry, question, result, end)
  --cancel-on-exit    Ctrl-C cancels the task on the receiver before leaving
  --stdio [name=NAME] run the stdio MCP server given after -- and stop it when the command ends
  --env KEY=VALUE     set in the stdio server's environment (repeatable)
  --cwd DIR           the stdio server's working directory
  -h, --help          this text

Questions the receiver asks (elicitation, sampling) are asked here when stdin is a terminal; otherwise they
are declined and the command ends with exit 6.

Exit codes: 0 completed; 1 failed, cancelled, purged or gone, or a result with isError; 2 a mistake in the command; 4 the receiver is
unreachable or refused, or the stdio server ended; 6 the task needs input and there is no terminal to ask; 7 --timeout reached;
130 stopped with Ctrl-C.`;

export function parseWatchArgs(argv: readonly string[]): WatchArgs {
  const { tokens, command } = splitAtCommand(argv);
  const parsed = readArgs(tokens, {
    help: { type: 'boolean', short: 'h' },
    protocol: { type: 'string' },
    tool: { type: 'string' },
    args: { type: 'string' },
    ttl: { type: 'string' },
    task: { type: 'string' },
    header: { type: 'string', multiple: true },
    timeout: { type: 'string' },
    'connect-timeout': { type: 'string' },
    json: { type: 'boolean' },
    'cancel-on-exit': { type: 'boolean' },
    ...STDIO_OPTIONS,
  });
  const { values, positionals } = parsed;
  const base = { era: 'auto' as const, args: {}, headers: {}, connectTimeoutMs: 0, json: false };
  if (values.help) return { ...base, help: true, url: '', cancelOnExit: false };
  if ((values.tool === undefined) === (values.task === undefined))
    throw new UsageError('name a tool to run (--tool NAME) or a task to follow (--task ID), one of them');
  if (values.task !== undefined && (values.args !== undefined || values.ttl !== undefined))
    throw new UsageError('--args and --ttl go with --tool: --task follows a task that already runs');
  const task = values.task?.trim();
  if (task !== undefined && (task === '' || task.length > 512))
    throw new UsageError('--task needs a task id (at most 512 characters)');
  let ttl: number | undefined;
  if (values.ttl !== undefined) {
    ttl = Number(values.ttl);
    if (!Number.isInteger(ttl) || ttl < 0)
      throw new UsageError(`--ttl ${values.ttl}: milliseconds, a whole number`);
  }
  return {
    help: false,
    ...receiverOrStdio(positionals, values, command, 'taskscope watch --tool NAME'),
    era: protocol(values.protocol),
    tool: values.tool,
    args: values.args === undefined ? {} : jsonObject(values.args, values.tool),
    ttl,
    taskId: task,
    headers: headers(values.header ?? []),
    timeoutMs: values.timeout === undefined ? undefined : timeout(values.timeout),
    connectTimeoutMs: timeout(values['connect-timeout']),
    json: values.json ?? false,
    cancelOnExit: values['cancel-on-exit'] ?? false,
  };
}
