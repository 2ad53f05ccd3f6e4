import path from 'node:path';
import { allowedHostsFromEnv } from '../../devserver/guard.js';
import { portFromEnv } from '../../devserver/http-server.js';
import { startApp } from '../../devserver/start.js';

/** `taskscope` with no subcommand: the page and the demo receivers on loopback, until Ctrl-C. */
export async function run(argv: string[]): Promise<number> {
  const dev = argv.includes('--dev');
  const started = await startApp({
    port: portFromEnv('PORT', 5173),
    dev,
    allowedHosts: allowedHostsFromEnv(),
    // Lets parallel e2e runs each serve their own build (test/e2e/run.mjs).
    ...(process.env.TASKSCOPE_DIST ? { staticDir: path.resolve(process.env.TASKSCOPE_DIST) } : {}),
  });
  console.log(
    `Taskscope ${dev ? '(dev) ' : ''}on ${started.url}/  (demo receivers: ${started.url}/demo/mcp for 2025-11-25, ${started.url}/demo/mcp-2026 for 2026-07-28)`,
  );
  return new Promise<number>((resolve) => {
    const stop = () => void started.close().then(() => resolve(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
