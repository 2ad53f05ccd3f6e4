import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from './test/helpers/chromium';

const port = Number(process.env.E2E_PORT ?? 5199);

export default defineConfig({
  testDir: 'test/e2e',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  // One more try in CI, where the suite shares two cores with the build: a test that passes only on its retry is
  // listed as flaky in the output (and is a bug to chase), one that fails twice fails the run.
  retries: process.env.CI ? 1 : 0,
  forbidOnly: !!process.env.CI,
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: 'retain-on-failure',
    launchOptions: { executablePath: chromiumPath, args: CHROMIUM_ARGS },
  },
  webServer: {
    // The same server `npm start` runs, on its own port; run.mjs builds dist/ first.
    command: 'node --import tsx src/cli/main.ts --no-open',
    env: { PORT: String(port) },
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
