import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'test/integration/**/*.test.ts', 'test/lint/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests start real receivers; two cores, so keep them from starving each other.
    maxWorkers: 2,
    // In CI a test that needs a second try is reported as flaky rather than failing the run; twice fails it.
    retry: process.env.CI ? 1 : 0,
  },
});
