import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    // Setup hooks start real processes (a demo run, Chromium, redis-server, CLI workers): seconds
    // alone, more beside other test files on two cores. Not a speed check, so as long as a test.
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
