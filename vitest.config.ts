import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'test/integration/**/*.test.ts', 'test/lint/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests start real receivers; two cores, so keep them from starving each other.
    maxWorkers: 2,
    // In CI a test that fails gets a second try (twice fails the run); one that passes on it is named at the end.
    retry: process.env.CI ? 1 : 0,
    reporters: process.env.CI ? ['default', './test/reporters/flaky.ts'] : ['default'],
  },
});
