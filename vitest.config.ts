import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (next to the modules: pure functions, stores, timing with fake clocks, rendering from
 * records in jsdom, and the layer rule) and `integration` (`test/integration`: the engine and the command line
 * against real receivers the tests start on loopback). `npx vitest --project unit` is the quick loop.
 */
export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    maxWorkers: 2,
    // In CI a test that fails gets a second try (twice fails the run); one that passes on it is named at the end.
    retry: process.env.CI ? 1 : 0,
    reporters: process.env.CI ? ['default', './test/reporters/flaky.ts'] : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.{ts,tsx}', 'test/lint/**/*.test.ts'],
          // In one run of both projects (`npx vitest`), the unit files first, then the integration files.
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // Mostly waiting on receivers' timers rather than computing: four files at a time on two cores is a
          // third faster than two, and each still gets its turn (more starve the timing-sensitive ones).
          maxWorkers: 4,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
