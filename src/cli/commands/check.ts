/**
 * `taskscope check <url>`: the report card without a browser. The engine runs here as it runs in the page's
 * Worker: it connects (the generation found out as the page does), runs the active check, keeps tracking what
 * the check started, and the card is judged from what it observed with the page's own rules.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { checkableTools } from '../../engine/active-check/active-check';
import { buildTrace } from '../../engine/trace/build-trace';
import { packageVersion } from '../../devserver/package-root';
import type { ToolInfo } from '../../mcp';
import { evaluateReport, withActiveCheck } from '../../rules/evaluate';
import { reportMarkdown } from '../../rules/report-markdown';
import type { ActiveCheckState, ReportCard } from '../../rules/report-types';
import { CHECK_USAGE, UsageError, parseCheckArgs, type CheckArgs } from '../check/args';
import { EXIT, judgeRun, parseBaseline, type Baseline, type CheckRun } from '../check/outcome';
import { cardText, checkJson, junitXml, type RunFacts } from '../check/outputs';
import { oneLine } from '../../format/control-chars';
import { connectWithin } from '../connect';
import { EngineClient } from '../engine-client';
import { Progress } from '../progress';
import type { CommandOptions } from '../main';

/** After the check, the tasks it started are followed this long at most to their end (results, purges). */
const SETTLE_MS = 5_000;

export async function run(argv: string[], options: CommandOptions = {}): Promise<number> {
  let args: CheckArgs;
  let baseline: Baseline | undefined;
  try {
    args = parseCheckArgs(argv);
    if (args.help) {
      console.log(CHECK_USAGE);
      return EXIT.pass;
    }
    if (args.baseline !== undefined) baseline = parseBaseline(await readText(args.baseline), args.baseline);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`taskscope check: ${error.message}`);
    console.error('Try taskscope check --help.');
    return EXIT.usage;
  }

  const progress = new Progress(process.stderr);
  const client = new EngineClient({ checkTiming: options.checkTiming });
  const version = packageVersion();
  try {
    progress.show(`connecting to ${args.url}`);
    const connected = await connectWithin(client, {
      url: args.url,
      stdio: args.stdio,
      headers: args.headers,
      era: args.era,
      timeoutMs: args.timeoutMs,
    });
    if (!connected.ok) {
      progress.clear();
      const run: CheckRun = {
        outcome: 'unreachable',
        exitCode: EXIT.unreachable,
        reason: connected.reason,
        rules: [],
      };
      console.error(`taskscope check: ${args.url}: ${oneLine(connected.reason)}`);
      console.log(`Result: UNREACHABLE (exit ${run.exitCode})`);
      await writeOutputs(args, undefined, run, { failOn: args.failOn, version }, client, []);
      return run.exitCode;
    }

    progress.show('listing tools');
    const { tools } = await client.request({ type: 'listTools' });
    const facts: RunFacts = { failOn: args.failOn, version, tool: pickedTool(tools, args) };
    if (facts.tool && facts.tool.chosenBy === 'auto')
      progress.note(
        `taskscope check: running ${oneLine(facts.tool.name)} as a task (the first tool the check can fill)`,
      );

    const stopProgress = client.onBatch(() => {
      const steps = client.check?.steps ?? [];
      const at = steps.findIndex((s) => s.state === 'running');
      if (at >= 0) progress.show(`check ${at + 1}/${steps.length}: ${steps[at]?.title}`);
    });
    const reply = await client.request({ type: 'checkReceiver', tool: args.tool, args: args.args });
    stopProgress();
    progress.show('following the tasks it started to their end');
    await settle(client, options.checkSettleMs ?? SETTLE_MS);
    progress.clear();

    const check = reply.ok ? reply.state : undefined;
    const card = judgeCard(client, args.url, tools, check);
    const run = judgeRun(card, {
      failOn: args.failOn,
      baseline,
      incomplete: reply.ok
        ? incompleteReason(reply.state, client.tasks.getState().order.length)
        : reply.reason,
    });
    process.stdout.write(cardText(card, run, facts));
    await writeOutputs(args, card, run, facts, client, tools);
    return run.exitCode;
  } finally {
    progress.clear();
    await client.close();
  }
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
}

/** The tool the check will run, as the check itself picks it (checkableTools, the first one). */
function pickedTool(tools: readonly ToolInfo[], args: CheckArgs): RunFacts['tool'] {
  const candidates = checkableTools(tools);
  if (args.tool !== undefined) {
    const found = candidates.find((c) => c.tool.name === args.tool);
    if (args.args) return { name: args.tool, args: args.args, chosenBy: 'flag' };
    return found ? { name: args.tool, args: found.args, chosenBy: 'flag' } : undefined;
  }
  const first = candidates[0];
  return first ? { name: first.tool.name, args: first.args, chosenBy: 'auto' } : undefined;
}

/**
 * Why the run is incomplete: the check stopped, a probe could not run, or it could start no task at all (the
 * steps that need one were skipped with the reason). Undefined when the check ran through. `started`: how
 * many tasks the run tracked (only the check starts tasks here).
 */
export function incompleteReason(check: ActiveCheckState, started: number): string | undefined {
  if (check.stopped) {
    const note = check.steps.find((s) => s.state === 'stopped' && s.note)?.note;
    return `the check stopped${note ? `: ${note}` : ''}`;
  }
  const broken = check.steps.find((s) => s.state === 'error');
  if (broken) return `${broken.title}: ${broken.note ?? 'failed'}`;
  const skipped = check.steps.find((s) => s.id === 'cancel-live' && s.state === 'skipped');
  if (started === 0 && skipped) return `no task could be run: ${skipped.note ?? 'no tool qualifies'}`;
  return undefined;
}

/** Waits until no tracked task is live, or `ms` have passed. */
async function settle(client: EngineClient, ms: number): Promise<void> {
  const done = () => [...client.tasks.getState().tasks.values()].every((t) => t.lifecycle !== 'live');
  await client.until(
    () => (done() ? true : undefined),
    ms,
    () => false,
  );
}

/** The card as the page judges it (report/hooks.ts), from what the engine's batches brought. */
function judgeCard(
  client: EngineClient,
  url: string,
  tools: ToolInfo[],
  check: ActiveCheckState | undefined,
): ReportCard {
  const { tasks, clockOffsetMs, clockSamples } = client.tasks.getState();
  const health = client.health;
  const passive = evaluateReport({
    receiver: { url, era: health?.era, server: health?.server },
    support: health?.support ?? { list: false, cancel: false, toolCall: false },
    tools,
    tasks: tasks.values(),
    snapshots: client.snapshots,
    results: client.results,
    traffic: client.traffic,
    clockOffsetMs,
    clockSamples,
    now: Date.now(),
  });
  return withActiveCheck(passive, check);
}

async function writeOutputs(
  args: CheckArgs,
  card: ReportCard | undefined,
  run: CheckRun,
  facts: RunFacts,
  client: EngineClient,
  tools: ToolInfo[],
): Promise<void> {
  const writes: Array<[string | undefined, () => string]> = [
    [args.junit, () => junitXml(card ?? emptyCard(args.url), run)],
    [args.markdown, () => reportMarkdown(card ?? emptyCard(args.url))],
    [args.json, () => checkJson(card, run, { ...facts, url: args.url })],
    [args.trace, () => traceText(client, args, tools)],
  ];
  for (const [file, text] of writes) if (file !== undefined) await writeFile(file, text());
}

function emptyCard(url: string): ReportCard {
  return {
    receiver: { url },
    generatedAt: Date.now(),
    rules: [],
    counts: { pass: 0, fail: 0, warn: 0, info: 0, unobserved: 0 },
  };
}

function traceText(client: EngineClient, args: CheckArgs, tools: ToolInfo[]): string {
  const { tasks, order } = client.tasks.getState();
  const health = client.health;
  const trace = buildTrace({
    receiver: {
      // A trace names a receiver by URL: a stdio server's is its bridge's, as the page records it.
      url: client.url ?? args.url,
      headers: args.headers,
      era: health?.era,
      protocolVersion: health?.protocolVersion,
      server: health?.server,
      support: health?.support,
      sessionId: health?.sessionId,
    },
    tools,
    tasks: order.map((id) => tasks.get(id)).filter((t) => t !== undefined),
    snapshot: (taskId) => client.snapshots.get(taskId),
    result: (taskId) => client.results.get(taskId),
    inbox: client.inbox,
    traffic: client.traffic,
  });
  return JSON.stringify(trace);
}
