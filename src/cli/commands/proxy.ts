/**
 * `taskscope proxy <upstream-url>`: Taskscope's server as `taskscope` starts it, plus a client endpoint that
 * forwards to the upstream unchanged (src/devserver/proxy/), so the page can watch what a real client does.
 * `taskscope proxy --stdio … -- <command>` is the stdio form (../proxy/stdio-proxy.ts).
 */
import path from 'node:path';
import { allowedHostsFromEnv } from '../../devserver/guard.js';
import { portFromEnv } from '../../devserver/http-server.js';
import { packageVersion } from '../../devserver/package-root.js';
import { redactUrl } from '../../mcp/redact-headers.js';
import { startApp, type StartedApp } from '../../devserver/start.js';
import { PROXY_USAGE, parseProxyArgs, type ProxyArgs } from '../proxy/args.js';
import { UsageError } from '../start/args.js';
import { openBrowser } from '../start/open-browser.js';
import { EXIT, startFailure } from './start.js';
import { untilStopped } from '../start/stop-signal.js';
import { seenMessages } from '../../devserver/proxy/seen-messages.js';
import type { Baseline } from '../check/outcome.js';
import { readBaseline, wantsReport, writeProxyReports } from '../proxy/write-report.js';

/** A host's config entry for the client endpoint, ready to paste (the `mcpServers` form most hosts read). */
export function hostConfigEntry(name: string, endpoint: string): string {
  return JSON.stringify({ mcpServers: { [name]: { type: 'http', url: endpoint } } }, null, 2);
}

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--stdio')) return (await import('../proxy/stdio-proxy.js')).runStdioProxy(argv);
  let args: ProxyArgs;
  let port: number;
  let baseline: Baseline | undefined;
  try {
    args = parseProxyArgs(argv);
    if (args.help) {
      console.log(PROXY_USAGE);
      return EXIT.ok;
    }
    port = args.port ?? portFromEnv('PORT', 5173);
    baseline = await readBaseline(args.report);
  } catch (error) {
    console.error(`taskscope proxy: ${(error as Error).message}`);
    if (error instanceof UsageError) console.error('Try taskscope proxy --help.');
    return EXIT.usage;
  }

  const host = '127.0.0.1';
  let started: StartedApp;
  try {
    started = await startApp({
      port,
      host,
      allowedHosts: allowedHostsFromEnv(),
      proxies: [{ name: args.name, upstream: args.upstream, headers: args.headers }],
      ...(process.env.TASKSCOPE_DIST ? { staticDir: path.resolve(process.env.TASKSCOPE_DIST) } : {}),
    });
  } catch (error) {
    console.error(await startFailure(error, port, host, `taskscope proxy ${redactUrl(args.upstream)}`));
    return EXIT.failed;
  }

  const endpoint = `${started.url}/proxy/${args.name}/mcp`;
  // The page opens on this proxy's observed sessions.
  const page = `${started.url}/?observe=${encodeURIComponent(args.name)}`;
  console.log(`Taskscope ${packageVersion()} on ${started.url}/`);
  console.log(`page: ${page}`);
  console.log(`client endpoint: ${endpoint}`);
  console.log(`  forwards to   ${redactUrl(args.upstream)}`);
  if (args.headers.length > 0)
    console.log(`  adds          ${args.headers.map((h) => h.name).join(', ')} (values not shown)`);
  console.log('  host config entry (point your MCP client here instead of the server):');
  console.log(
    hostConfigEntry(args.name, endpoint)
      .split('\n')
      .map((line) => `    ${line}`)
      .join('\n'),
  );
  console.log('Ctrl-C stops it.');
  if (args.open) openBrowser(page);

  return untilStopped(async () => {
    // The report first (well within 2 s of the signal): closing waits for clients' open streams.
    let code: number = EXIT.ok;
    if (wantsReport(args.report) && started.proxy) {
      const run = await writeProxyReports(
        args.report,
        seenMessages(started.proxy.tap.entries()),
        {
          upstream: redactUrl(args.upstream),
          version: packageVersion(),
          dropped: started.proxy.tap.evicted,
          ...(baseline ? { baseline } : {}),
        },
        (line) => console.error(`taskscope proxy: ${line}`),
      );
      console.log(`client report: ${run.outcome} (${run.reason})`);
      code = run.exitCode;
    }
    await started.close();
    return code;
  });
}
