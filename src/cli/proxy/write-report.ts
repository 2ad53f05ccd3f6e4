/**
 * Writes `taskscope proxy`'s report files (--junit, --json, --markdown) from what passed: each client session
 * judged by the client rules (report.ts). A file that cannot be written is said, never fatal: forwarding and
 * the exit code are the proxy's first duty.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { SeenMessage } from '../../rules/client-evidence';
import type { ReportArgs } from '../check/args';
import { parseBaseline, type Baseline } from '../check/outcome';
import { judgeProxy, proxyJson, proxyJunit, proxyMarkdown, type ProxyRun } from './report';

export const wantsReport = (args: ReportArgs) =>
  args.junit !== undefined || args.json !== undefined || args.markdown !== undefined;

/** Reads the baseline file once, at the start: a mistake in it is a mistake in the command (exit 2). */
export async function readBaseline(args: ReportArgs) {
  return args.baseline === undefined
    ? undefined
    : parseBaseline(await readFile(args.baseline, 'utf8'), args.baseline);
}

export async function writeProxyReports(
  args: ReportArgs,
  messages: readonly SeenMessage[],
  facts: { upstream: string; version: string; baseline?: Baseline },
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
  for (const [file, text] of writes)
    if (file !== undefined)
      await writeFile(file, text()).catch((error: unknown) =>
        say(`could not write ${file}: ${(error as Error).message}`),
      );
  return run;
}
