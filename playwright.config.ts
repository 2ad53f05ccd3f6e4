import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, chromiumPath } from './test/helpers/chromium';

/**
 * Each worker starts its own Taskscope server (test/e2e/fixtures.ts sets `baseURL` to it), so workers share no
 * tasks, counts or sessions; run.mjs builds dist/ first. Two workers, one per core (E2E_WORKERS sets another
 * number): the suite is mostly Chromium drawing, so more than two only queue.
 */
export default defineConfig({
  testDir: 'test/e2e',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  // One more try in CI, where the suite shares two cores with the build: a test that passes only on its retry is
  // listed as flaky in the output (and is a bug to chase), one that fails twice fails the run.
  retries: process.env.CI ? 1 : 0,
  forbidOnly: !!process.env.CI,
  reporter: [['list']],
  use: {
    // Recording a trace for every test cost a third of the suite's time; a failure's retry records one.
    trace: 'on-first-retry',
    launchOptions: { executablePath: chromiumPath, args: CHROMIUM_ARGS },
  },
});
