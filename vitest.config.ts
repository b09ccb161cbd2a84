import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'engine/**/*.test.ts', 'adapters/**/*.test.ts', 'server/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // Tests that start processes or browsers run several times slower on a loaded 2-core CI machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
