/**
 * `taskscope serve <trace.json>` / `--demo`: a recorded trace served on loopback as a live receiver any MCP
 * client can use (recorded-receiver.ts). Runs until Ctrl-C.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { packageRoot } from '../../devserver/package-root';
import { allowedHostsFromEnv } from '../../devserver/guard';
import { parseTraceText } from '../../engine/trace/schema';
import type { Trace } from '../../engine/trace/trace-types';
import { createRecordedReceiver } from '../serve/recorded-receiver';
import { UsageError, readArgs } from '../start/args';

export const SERVE_USAGE = `Usage:
  taskscope serve <trace.json> [--port N] [--speed X]
  taskscope serve --demo [--port N] [--speed X]

Serves a recorded Taskscope trace as a live 2025-11-25 receiver on 127.0.0.1 (Streamable HTTP, JSON answers):
tools/list gives the recorded tools; a task-augmented tools/call of one starts a task that goes through the
statuses the recording observed, at the recorded pace; tasks/get, tasks/result, tasks/list and tasks/cancel
answer from it. --demo serves the trace the page ships.

  --port N     the port (default 3100; 0 picks a free one)
  --speed X    play X times faster (default 1)
  -h, --help   this text

Exit codes: 0 stopped with Ctrl-C; 1 could not listen; 2 a mistake in the command or the trace.`;

export async function run(argv: string[]): Promise<number> {
  let trace: Trace;
  let port: number;
  let speed: number;
  try {
    const parsed = readArgs(argv, {
      help: { type: 'boolean', short: 'h' },
      demo: { type: 'boolean' },
      port: { type: 'string' },
      speed: { type: 'string' },
    });
    const { values, positionals } = parsed;
    if (values.help) {
      console.log(SERVE_USAGE);
      return 0;
    }
    if (values.demo === positionals.length > 0 || positionals.length > 1)
      throw new UsageError('name one trace file, or --demo');
    port = values.port === undefined ? 3100 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535)
      throw new UsageError(`--port ${values.port}: 0–65535`);
    speed = values.speed === undefined ? 1 : Number(values.speed);
    if (!Number.isFinite(speed) || speed <= 0 || speed > 1000)
      throw new UsageError(`--speed ${values.speed}: more than 0, at most 1000`);
    const file = values.demo ? demoTracePath() : (positionals[0] ?? '');
    trace = await readTrace(file);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`taskscope serve: ${error.message}`);
    console.error('Try taskscope serve --help.');
    return 2;
  }

  const handle = createRecordedReceiver(trace, { speed, allowedHosts: allowedHostsFromEnv() });
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // Once an answer has started, a status cannot be sent any more: the connection is ended instead.
      if (res.headersSent) res.destroy();
      else res.writeHead(500).end();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
  } catch (error) {
    console.error(`taskscope serve: cannot listen on 127.0.0.1:${port}: ${(error as Error).message}`);
    return 1;
  }
  const { port: bound } = server.address() as { port: number };
  const tools = [...new Set(trace.tasks.flatMap((t) => (t.tool ? [t.tool] : [])))];
  console.log(`Taskscope serve: a recording of ${trace.receiver.url} on http://127.0.0.1:${bound}/mcp`);
  console.log(`  ${trace.tasks.length} recorded tasks; tools ${tools.join(', ')}; speed ${speed}×`);
  console.log('Ctrl-C stops it.');
  return new Promise<number>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      server.closeAllConnections();
      server.close(() => resolve(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** The demo trace the page ships: public/ in the repository, dist/ in the package. */
function demoTracePath(): string {
  const root = packageRoot();
  for (const candidate of [
    path.join(root, 'dist', 'demo-trace.json'),
    path.join(root, 'public', 'demo-trace.json'),
  ])
    if (existsSync(candidate)) return candidate;
  throw new UsageError('the demo trace is not here (public/demo-trace.json or dist/demo-trace.json)');
}

async function readTrace(file: string): Promise<Trace> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
  const parsed = parseTraceText(text);
  if (!parsed.ok)
    throw new UsageError(`${file} is not a Taskscope trace: ${parsed.errors.slice(0, 3).join('; ')}`);
  if (parsed.trace.receiver.era === '2026-07-28')
    throw new UsageError(
      `${file} was recorded from a 2026-07-28 receiver: serve replays 2025-11-25 recordings only (for now)`,
    );
  return parsed.trace;
}
