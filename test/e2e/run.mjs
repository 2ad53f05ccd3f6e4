// Runs the Playwright suite against Debian's Chromium. Outside CI a missing browser skips the suite loudly;
// with CI=true it fails, because then nothing would check the UI at all.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  const banner = '!'.repeat(78);
  console.error(`\n${banner}\n  E2E TESTS NOT RUN: no Chromium at ${chromium}.`);
  console.error(
    '  Install it with `apt-get install -y chromium`, or set CHROMIUM_PATH to a Chromium binary.',
  );
  console.error(`${banner}\n`);
  process.exit(process.env.CI ? 1 : 0);
}

const run = (cmd, args) => {
  const result = spawnSync(cmd, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};
const outDir = process.env.TASKSCOPE_DIST ? ['--outDir', process.env.TASKSCOPE_DIST, '--emptyOutDir'] : [];
run('npx', ['vite', 'build', '--logLevel', 'warn', ...outDir]);
// The page bundle's gate reads the build just made: no second build.
run('node', ['scripts/bundle-check.mjs', process.env.TASKSCOPE_DIST ?? 'dist']);
run('npx', ['playwright', 'test', ...process.argv.slice(2)]);
