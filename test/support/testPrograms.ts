// The programs outside npm that some tests need (gepa 0.1.4 in Python, Chromium, redis-server,
// iproute2, the Gemma GGUF), where each is looked for, which tests use it and the command that sets it up.
// One place for both sides: scripts/testSetup.ts (run first by `npm test`) installs or reports
// what is missing, and the tests skip on the same answer, or fail under CI=true, where a missing
// program is a broken setup, not a reason to skip. Looks only at files: no process is started.
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');

export type ProgramName = 'gepa' | 'chromium' | 'redis' | 'model' | 'iproute2';

export interface TestProgram {
  name: ProgramName;
  /** What it is, as the skip line says it. */
  what: string;
  /** The test files that need it. */
  tests: readonly string[];
  /** Sets it up on this machine (apt-get, pip; sudo when not root). */
  setup: string;
  /** Why it is missing, or null when it is there. */
  missing: (env: NodeJS.ProcessEnv) => string | null;
}

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The first executable `name` on env.PATH, as a shell would find it. */
export const onPath = (name: string, env: NodeJS.ProcessEnv): string | undefined =>
  (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name)).find(executable);

/** Where the report tests find Chromium (GEPA_TEST_CHROMIUM, else Debian's). */
export const chromiumPath = (env: NodeJS.ProcessEnv = process.env): string => env.GEPA_TEST_CHROMIUM || '/usr/bin/chromium';
/** Where the real-model tests find Gemma 3 270M (GEPA_TEST_GGUF, else the file .ci/setup-gemma.sh assembles). */
export const ggufPath = (env: NodeJS.ProcessEnv = process.env): string => env.GEPA_TEST_GGUF || join(ROOT, '.models', 'gemma-3-270m-q4_k_m.gguf');
/** Where the reference tests find gepa (GEPA_SRC, else the pinned release bench/reference/gepaInstall.ts installs). */
const gepaFolder = (env: NodeJS.ProcessEnv): string => env.GEPA_SRC || join(ROOT, 'bench', 'reference', '.gepa-0.1.4');

export const TEST_PROGRAMS: readonly TestProgram[] = [
  {
    name: 'gepa',
    what: "gepa 0.1.4 (Python), the reference the differential tests run",
    tests: ['test/referenceGepa.test.ts'],
    setup: 'bash .ci/setup-gepa.sh',
    missing: (env) => {
      if (!onPath('python3', env)) return 'python3 is not on PATH';
      const folder = gepaFolder(env);
      return existsSync(join(folder, 'gepa', '__init__.py')) ? null : `no gepa in ${folder}`;
    },
  },
  {
    name: 'chromium',
    what: 'Chromium, which renders report.html and the workbench',
    tests: ['test/report.test.ts', 'test/reportLayout.test.ts', 'test/workbench.test.ts'],
    setup: 'bash .ci/setup-chromium.sh',
    missing: (env) => (executable(chromiumPath(env)) ? null : `no ${chromiumPath(env)}`),
  },
  {
    name: 'redis',
    what: 'redis-server, for the BullMQ executor',
    tests: ['test/bullmqExecutor.test.ts', 'test/bullmqResume.test.ts', 'test/bullmqStalls.test.ts', 'test/bullmqRedisRestart.test.ts', 'test/runConfigAdapter.test.ts', 'test/fleetShare.test.ts', 'test/queueRedis.test.ts'],
    setup: 'bash .ci/setup-redis.sh',
    missing: (env) => (env.GEPA_TEST_REDIS_URL || onPath('redis-server', env) ? null : 'no redis-server on PATH and GEPA_TEST_REDIS_URL is unset'),
  },
  {
    name: 'iproute2',
    what: 'iproute2 (`ip`), which puts Redis and workers in network namespaces of their own (as root)',
    tests: ['test/fleetFaults.test.ts'],
    setup: 'bash .ci/setup-iproute2.sh',
    missing: (env) => (onPath('ip', env) ? null : 'no `ip` on PATH'),
  },
  {
    name: 'model',
    what: 'Gemma 3 270M (GGUF), the real model',
    tests: ['test/localLanguageModel.test.ts', 'test/localModelRun.test.ts'],
    setup: 'bash .ci/setup-gemma.sh',
    missing: (env) => (existsSync(ggufPath(env)) ? null : `no ${ggufPath(env)}`),
  },
];

/** CI=true (or any CI value but '' and 'false'): a missing program fails instead of skipping. */
export const inCi = (env: NodeJS.ProcessEnv = process.env): boolean => env.CI !== undefined && env.CI !== '' && env.CI !== 'false';

/** The one line `npm test` prints for a program it could not have (under CI those tests fail instead of skipping). */
export function skipLine(program: TestProgram, reason: string, ci = false): string {
  return `${ci ? 'cannot run' : 'skipped'} ${program.tests.join(', ')}: ${program.what} is missing (${reason}); set it up with: ${program.setup}`;
}

/**
 * For a test file: true when `name` is there. Missing outside CI: false (the file skips; the
 * setup step has printed why). Missing under CI: throws, so the file fails and names the setup.
 */
export function haveProgram(name: ProgramName, env: NodeJS.ProcessEnv = process.env): boolean {
  const program = TEST_PROGRAMS.find((p) => p.name === name)!;
  const reason = program.missing(env);
  if (reason === null) return true;
  if (inCi(env)) throw new Error(`CI=true but ${program.what} is missing (${reason}): ${program.setup} sets it up`);
  return false;
}
