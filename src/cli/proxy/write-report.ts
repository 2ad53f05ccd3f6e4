/**
 * Writes `taskscope proxy`'s report files (--junit, --json, --markdown) from what passed: each client session
 * judged by the client rules (report.ts); and with --trace each client session as a trace. A file that cannot be written is said, never fatal: forwarding and
 * the exit code are the proxy's first duty.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { SeenMessage } from '../../rules/client-evidence';
import type { ReportArgs } from '../check/args';
import { parseBaseline, type Baseline } from '../check/outcome';
import { judgeProxy, proxyJson, proxyJunit, proxyMarkdown, type ProxyRun } from './report';
import { observedTrace } from '../../engine/observe/observed-trace';
import { splitClientSessions } from '../../rules/client-sessions';

/** The report options and `--trace FILE` (each client session as a Taskscope trace). */
export type ProxyReportArgs = ReportArgs & { trace?: string };

export const wantsReport = (args: ProxyReportArgs) =>
  args.junit !== undefined ||
  args.json !== undefined ||
  args.markdown !== undefined ||
  args.trace !== undefined;

/** FILE for the first client session, FILE-2, FILE-3… (before the extension) for the others. */
export function traceFileName(file: string, index: number): string {
  if (index === 0) return file;
  const dot = file.lastIndexOf('.');
  const slash = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return dot > slash + 1 ? `${file.slice(0, dot)}-${index + 1}${file.slice(dot)}` : `${file}-${index + 1}`;
}

/** Reads the baseline file once, at the start: a mistake in it is a mistake in the command (exit 2). */
export async function readBaseline(args: ReportArgs) {
  return args.baseline === undefined
    ? undefined
    : parseBaseline(await readFile(args.baseline, 'utf8'), args.baseline);
}

export async function writeProxyReports(
  args: ProxyReportArgs,
  messages: readonly SeenMessage[],
  facts: { upstream: string; version: string; baseline?: Baseline; dropped?: number },
  say: (line: string) => void,
): Promise<ProxyRun> {
  const run = judgeProxy(messages, {
    failOn: args.failOn,
    ...(facts.baseline ? { baseline: facts.baseline } : {}),
  });
  const all = {
    upstream: facts.upstream,
    version: facts.version,
    failOn: args.failOn,
    generatedAt: Date.now(),
  };
  const writes: Array<[string | undefined, () => string]> = [
    [args.junit, () => proxyJunit(run, all)],
    [args.json, () => proxyJson(run, all)],
    [args.markdown, () => proxyMarkdown(run, all)],
  ];
  if (args.trace !== undefined)
    splitClientSessions(messages).forEach((client, i) =>
      writes.push([
        traceFileName(args.trace as string, i),
        () => JSON.stringify(observedTrace(client, facts.upstream)),
      ]),
    );
  for (const [file, text] of writes)
    if (file !== undefined)
      await Promise.resolve()
        .then(() => writeFile(file, text()))
        .catch((error: unknown) => say(`could not write ${file}: ${(error as Error).message}`));
  return run;
}
