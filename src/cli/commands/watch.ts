/**
 * `taskscope watch <url> --tool NAME` / `--task ID`: one task followed from a terminal by the engine as the page
 * runs it (the tracker's poller: never sooner than the receiver's pollInterval, Retry-After and backoff
 * honoured), its timeline printed as it changes, its result at the end.
 */
import { isTerminal } from '../../mcp';
import type { InboxRequest } from '../../engine/messages';
import type { TimelineEntry, TrackedTask } from '../../tracker/task-store';
import { oneLine } from '../../format/control-chars';
import { connectWithin } from '../connect';
import { EngineClient } from '../engine-client';
import { Progress } from '../progress';
import { UsageError } from '../start/args';
import { WATCH_USAGE, parseWatchArgs, type WatchArgs } from '../watch/args';
import { askOnTerminal, refusal } from '../watch/ask';
import { entryLine, resultText, statusLine } from '../watch/lines';

export const EXIT = {
  completed: 0,
  failed: 1,
  usage: 2,
  unreachable: 4,
  needsInput: 6,
  timeout: 7,
  interrupted: 130,
} as const;

export async function run(argv: string[]): Promise<number> {
  let args: WatchArgs;
  try {
    args = parseWatchArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`taskscope watch: ${error.message}`);
    console.error('Try taskscope watch --help.');
    return EXIT.usage;
  }
  if (args.help) {
    console.log(WATCH_USAGE);
    return EXIT.completed;
  }
  const client = new EngineClient();
  try {
    return await follow(client, args);
  } finally {
    await client.close();
  }
}

async function follow(client: EngineClient, args: WatchArgs): Promise<number> {
  const progress = new Progress(process.stderr);
  // The task's status line, made from what the client holds when it is drawn: it never lags the lines above it.
  let statusNow: () => string | undefined = () => undefined;
  // While a question is on the terminal, the status line stays away from its prompt.
  const screen = { asking: false };
  const showStatus = () => {
    const status = screen.asking ? undefined : statusNow();
    if (status) progress.show(status);
  };
  const event = (value: Record<string, unknown>) => {
    if (args.json) process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...value })}\n`);
  };
  const print = (line: string) => {
    if (args.json) return;
    progress.clear();
    process.stdout.write(`${line}\n`);
    showStatus();
  };
  const fail = (code: number, message: string) => {
    progress.clear();
    console.error(`taskscope watch: ${message}`);
    event({ event: 'end', exitCode: code, reason: message });
    return code;
  };

  progress.show(`connecting to ${args.url}`);
  const connected = await connectWithin(client, {
    url: args.url,
    stdio: args.stdio,
    headers: args.headers,
    era: args.era,
    timeoutMs: args.connectTimeoutMs,
  });
  if (!connected.ok) return fail(EXIT.unreachable, `${args.url}: ${oneLine(connected.reason)}`);

  let taskId: string;
  if (args.tool !== undefined) {
    const { tools } = await client.request({ type: 'listTools' });
    const tool = tools.find((t) => t.name === args.tool);
    if (!tool)
      return fail(
        EXIT.usage,
        `the receiver has no tool ${args.tool} (it has: ${oneLine(tools.map((t) => t.name).join(', ')).slice(0, 1000) || 'none'})`,
      );
    const reply = await client.request({ type: 'run', tool, args: args.args, ttl: args.ttl });
    if (!reply.ok) return fail(EXIT.failed, `${tool.name}: ${oneLine(reply.error.message)}`);
    if (reply.taskId === undefined) {
      // 2026-07-28 lets a receiver answer at once instead of starting a task.
      progress.clear();
      print(`${tool.name} answered at once, with no task:`);
      print(resultText(reply.answer));
      event({ event: 'result', immediate: true, result: reply.answer.value });
      const code = reply.answer.value.isError ? EXIT.failed : EXIT.completed;
      event({ event: 'end', exitCode: code });
      return code;
    }
    taskId = reply.taskId;
    print(`${tool.name} started task ${oneLine(taskId)}`);
  } else {
    taskId = args.taskId ?? '';
    if (!(await client.request({ type: 'track', taskId })))
      return fail(EXIT.usage, `cannot follow ${taskId}`);
    print(`following task ${oneLine(taskId)}`);
  }
  event({ event: 'task', taskId, tool: args.tool });

  return new Promise<number>((resolve) => {
    let printed = 0;
    let lastObservation: TimelineEntry | undefined;
    let lastStatus: string | null | undefined;
    let ended = false;
    statusNow = () => {
      const { tasks, clockOffsetMs } = client.tasks.getState();
      const task = tasks.get(taskId);
      return task && statusLine(task, client.snapshots.get(taskId), Date.now(), clockOffsetMs);
    };
    const finish = (code: number, reason?: string) => {
      if (ended) return;
      ended = true;
      statusNow = () => undefined;
      stopBatches();
      clearInterval(ticker);
      clearTimeout(limit);
      process.off('SIGINT', interrupt);
      client.interruptHandled = false;
      progress.clear();
      const task = client.tasks.getState().tasks.get(taskId);
      if (reason) console.error(`taskscope watch: ${reason}`);
      event({
        event: 'end',
        exitCode: code,
        status: task?.status ?? null,
        lifecycle: task?.lifecycle ?? null,
        polls: task?.pollCount ?? 0,
        ...(reason ? { reason } : {}),
      });
      resolve(code);
    };
    const onBatch = () => {
      const task = client.tasks.getState().tasks.get(taskId);
      if (!task) return;
      const total = task.droppedEntries + task.entries.length;
      for (let index = Math.max(printed, task.droppedEntries); index < total; index++) {
        const entry = task.entries[index - task.droppedEntries];
        if (!entry) continue;
        event({ event: 'entry', taskId, entry });
        const line = entryLine(entry, lastObservation);
        if (entry.kind === 'observation') lastObservation = entry;
        if (line) print(line);
      }
      printed = total;
      if (task.status !== lastStatus) {
        lastStatus = task.status;
        const snapshot = client.snapshots.get(taskId);
        event({
          event: 'status',
          taskId,
          status: task.status,
          statusMessage: snapshot?.statusMessage ?? null,
          polls: task.pollCount,
          pollInterval: snapshot?.pollInterval ?? null,
        });
      }
      showStatus();
      for (const asked of newQuestions()) void answer(asked);
      // The engine ended the task with its stdio server (session ended): exit 4, saying how the server ended.
      if (client.health?.reason === 'server-exited')
        return finish(
          EXIT.unreachable,
          `the stdio server ${client.stdioEnded() ?? `ended: ${client.health.error?.message ?? ''}`}`,
        );
      const code = endCode(task);
      if (code !== undefined) {
        const result = client.results.get(taskId);
        if (result) {
          print(`result${result.value.isError ? ' (isError)' : ''}:`);
          print(resultText(result));
          event({ event: 'result', taskId, result: result.value });
        }
        // A tool's error is a failure however it came: in an immediate answer or as the task's result.
        finish(code === EXIT.completed && result?.value.isError ? EXIT.failed : code);
      }
    };
    let seenInbox = 0;
    const newQuestions = (): InboxRequest[] => {
      const fresh = client.inbox.slice(seenInbox);
      seenInbox = client.inbox.length;
      return fresh.flatMap((e) => (e.kind === 'asked' ? [e.request] : []));
    };
    const answer = async (request: InboxRequest) => {
      event({ event: 'question', taskId, method: request.method, params: request.params });
      if (!process.stdin.isTTY || args.json) {
        const refused = refusal(request);
        await client.request({ type: 'answer', key: request.key, ...refused });
        finish(
          EXIT.needsInput,
          `the receiver asks a person (${request.method}) and there is no terminal to ask on: ${refused.outcome}. Run it in a terminal, or answer it in Taskscope's page.`,
        );
        return;
      }
      if (screen.asking) return;
      screen.asking = true;
      progress.clear();
      try {
        const reply = await askOnTerminal(request, { input: process.stdin, output: process.stderr }).catch(
          // The terminal closed (Ctrl-D) or failed: nobody answers, so the question is declined.
          () => refusal(request),
        );
        await client.request({ type: 'answer', key: request.key, ...reply });
      } finally {
        screen.asking = false;
        showStatus();
      }
    };
    const stopBatches = client.onBatch(onBatch);
    const ticker = setInterval(() => {
      // A stdio server that ended is not started again: its task can be followed no further.
      const ended = client.stdioEnded();
      if (ended) finish(EXIT.unreachable, `the stdio server ${ended}`);
      else if (progress.enabled) showStatus();
    }, 1000);
    const limit =
      args.timeoutMs === undefined
        ? undefined
        : setTimeout(
            () =>
              finish(
                EXIT.timeout,
                `--timeout reached (${(args.timeoutMs ?? 0) / 1000} s): the task still runs`,
              ),
            args.timeoutMs,
          );
    const interrupt = () => {
      if (!args.cancelOnExit)
        return finish(EXIT.interrupted, 'stopped (the task goes on: --cancel-on-exit cancels it)');
      print('cancelling the task…');
      void client
        .request({ type: 'cancel', taskId })
        .then((error) =>
          finish(
            EXIT.interrupted,
            error ? `cancel refused: ${oneLine(error.message)}` : 'stopped; the task was cancelled',
          ),
        );
    };
    process.on('SIGINT', interrupt);
    client.interruptHandled = true;
    onBatch();
  });
}

/** The exit code once the task has ended and its result (if it has one) is in; undefined while it is not. */
function endCode(task: TrackedTask): number | undefined {
  if (task.lifecycle === 'live') return undefined;
  if (task.lifecycle !== 'terminal') return EXIT.failed;
  if (task.status === 'completed' || task.status === 'failed') {
    // Waits for the result (a tasks/result held open for input answers it too), or for the word that none comes.
    const state = task.result.state;
    if (state !== 'fetched' && state !== 'unavailable' && state !== 'stopped') return undefined;
  }
  if (!task.status || !isTerminal(task.status)) return undefined;
  return task.status === 'completed' ? EXIT.completed : EXIT.failed;
}
