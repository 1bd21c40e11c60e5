// Two projects. `integration` holds the tests that reach outside this process: child processes
// (kills, the CLI as a user runs it, the packed tarball, the examples), Redis and BullMQ,
// OpenTelemetry's SDK in a child, Chromium, the real GGUF model, gepa's Python reference, and
// the end-to-end hang that waits in real time. `fast` is everything else: in-process, simulated
// models and time, loopback servers started by the test. `npm test` runs both; `npm run
// test:fast` runs the fast set alone while working.
import { defineConfig } from 'vitest/config';

/** Test files that start processes or services, or wait in real time. */
const INTEGRATION = [
  // child processes
  'anythingKillResume', 'bullmqResume', 'cli', 'cliAnythingProgram', 'consumer', 'durableRun', 'evaluationCacheSharing', 'examples', 'otel', 'productionInstall', 'referenceGepa', 'runLock',
  // Redis (started on loopback by the test or .ci/run)
  'bullmqBatchJobs', 'bullmqExecutor', 'bullmqRedisRestart', 'bullmqStalls', 'runConfigAdapter',
  // Redis and workers in network namespaces of their own (root); two runs on one fleet; failover's moves
  'fleetFaults', 'fleetShare', 'queueRedis',
  // Chromium
  'report', 'reportLayout', 'workbench',
  // the real model
  'localLanguageModel', 'localModelRun',
  // a hang and Ctrl-C in real time
  'hungCalls',
  // npm test's set-up step, which finds and installs the programs above (its test fakes them in-process)
  'testSetup',
].map((name) => `test/${name}.test.ts`);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    // Setup hooks start real processes (a demo run, Chromium, redis-server, CLI workers): seconds
    // alone, more beside other test files on two cores. Not a speed check, so as long as a test.
    hookTimeout: 60_000,
    pool: 'forks',
    // Two test files at a time. Vitest's default outside watch mode is one fewer than the cores,
    // which on a 2-core machine runs the 142 files one after another (302 s, a third of it each
    // file's imports); most files wait on child processes, Redis or timers as much as they compute,
    // so two at a time took the suite to 217 s with the machine otherwise busy, all passing.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: INTEGRATION } },
      { extends: true, test: { name: 'integration', include: INTEGRATION } },
    ],
  },
});
