import { defineConfig } from 'vitest/config';

/**
 * `npm run test:pack`: packs the package as `npm pack` would publish it, installs the tarball into an empty
 * folder without dev dependencies and runs its command. Apart from the unit and integration run because it
 * builds (prepack) and installs, minutes of work that must not share two cores with timing-sensitive tests.
 */
export default defineConfig({
  test: {
    include: ['test/pack/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 600_000,
    maxWorkers: 1,
  },
});
