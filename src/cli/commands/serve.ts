/**
 * `taskscope serve <trace.json>` / `--demo`: a recorded trace served on loopback as a live receiver any MCP
 * client can use (serve/recorded-receiver.ts). Runs until Ctrl-C.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import express from 'express';
import { packageRoot } from '../../devserver/package-root';
import { allowedHostsFromEnv } from '../../devserver/guard';
import { listenOnLoopback } from '../../devserver/http-server';
import { sendJsonRpcError } from '../../devserver/json-rpc-http';
import { parseTraceText } from '../../engine/trace/schema';
import type { Trace } from '../../engine/trace/schema';
import { createRecordedReceiver } from '../serve/recorded-receiver';
import { UsageError, readArgs } from '../start/args';
import { untilStopped } from '../start/stop-signal';

export const SERVE_USAGE = `Usage:
  taskscope serve <trace.json> [--port N] [--speed X | --step]
  taskscope serve --demo [--port N] [--speed X | --step]

Serves a recorded Taskscope trace on 127.0.0.1 as a live receiver of the generation it was recorded from
(2025-11-25: initialize, sessions, tasks/result; 2026-07-28: server/discover, the tasks extension). A
tools/call of a recorded tool starts a task that goes through the statuses the recording observed, at the
recorded pace; the recorded questions (elicitation) are asked and the task waits for the answer; status
pushes are sent when the recording has them. --demo serves the trace the page ships.

  --port N     the port (default 3100; 0 picks a free one)
  --speed X    play X times faster (default 1)
  --step       move the tasks on one recorded status each time you press Enter (a terminal only)
  -h, --help   this text

Exit codes: 0 stopped with Ctrl-C; 1 could not listen; 2 a mistake in the command or the trace.`;

export async function run(argv: string[]): Promise<number> {
  let trace: Trace;
  let port: number;
  let speed: number;
  let step: boolean;
  try {
    const parsed = readArgs(argv, {
      help: { type: 'boolean', short: 'h' },
      demo: { type: 'boolean' },
      port: { type: 'string' },
      speed: { type: 'string' },
      step: { type: 'boolean' },
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
    step = values.step === true;
    if (step && values.speed !== undefined) throw new UsageError('--step and --speed: choose one');
    if (step && !process.stdin.isTTY)
      throw new UsageError('--step reads Enter from a terminal, and stdin is not one (use --speed instead)');
    const file = values.demo ? demoTracePath() : (positionals[0] ?? '');
    trace = await readTrace(file);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`taskscope serve: ${error.message}`);
    console.error('Try taskscope serve --help.');
    return 2;
  }

  const receiver = createRecordedReceiver(trace, { speed, step, allowedHosts: allowedHostsFromEnv() });
  const app = express();
  app.disable('x-powered-by');
  app.use('/mcp', receiver.router);
  app.use((_req, res) => sendJsonRpcError(res, 404, -32600, 'Not found: the MCP endpoint is /mcp'));
  let listening;
  try {
    listening = await listenOnLoopback(app, port);
  } catch (error) {
    receiver.close();
    console.error(`taskscope serve: cannot listen on 127.0.0.1:${port}: ${(error as Error).message}`);
    return 1;
  }
  const tools = [...new Set(trace.tasks.flatMap((t) => (t.tool ? [t.tool] : [])))];
  console.log(
    `Taskscope serve: a ${receiver.era} recording of ${trace.receiver.url} on ${listening.url}/mcp`,
  );
  console.log(
    `  ${trace.tasks.length} recorded tasks; tools ${tools.join(', ')}; ${step ? 'Enter moves the tasks on' : `speed ${speed}×`}`,
  );
  console.log('Ctrl-C stops it.');
  const offEvents = receiver.onEvent((event) => {
    if (event.type === 'removed') return;
    const state = receiver.playback.current(event.task);
    const what =
      event.type === 'asked'
        ? `asks ${event.question.method}, waiting for the answer`
        : `${state.status}${state.statusMessage ? ` · ${state.statusMessage.slice(0, 200)}` : ''}`;
    console.log(`  ${event.task.plan.tool} ${event.task.taskId.slice(0, 8)}: ${what}`);
  });
  const lines = step ? createInterface({ input: process.stdin }) : undefined;
  lines?.on('line', () => {
    const moved = receiver.step();
    if (moved === 0) console.log('  (no task to move on: none running, or each waits for an answer)');
  });
  // Ctrl-C closes the terminal's reader too, whose close would stop it a second time: it stops once.
  return untilStopped(
    async () => {
      lines?.close();
      offEvents();
      receiver.close();
      listening.server.closeAllConnections();
      await listening.close();
      return 0;
    },
    { also: (stop) => lines?.on('close', stop) },
  );
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
  return parsed.trace;
}
