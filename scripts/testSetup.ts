// The first step of `npm test`: makes sure the programs outside npm that some tests need are
// there (test/support/testPrograms.ts lists them). What is missing is installed when this process
// may (root, or CI, or GEPA_TEST_SETUP=install: `npm run test:setup`) by the program's
// .ci/setup-*.sh; what is still missing gets one line saying which tests skip and the command
// that sets it up. Under CI=true a missing program fails the step: CI must not pass by skipping.
// Nothing is left running: the Redis tests start (and stop) their own redis-server.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inCi, skipLine, TEST_PROGRAMS, type TestProgram } from '../test/support/testPrograms.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');

export interface TestSetupOptions {
  env: NodeJS.ProcessEnv;
  /** Runs a program's setup command; true when it exited 0. */
  install: (program: TestProgram) => boolean;
  /** The user id (0 = root, who may apt-get without asking). */
  uid: number;
  log: (line: string) => void;
}

/**
 * GEPA_TEST_SETUP: 'install' always tries (sudo asks for a password when not root), 'skip' never
 * does, unset tries as root or under CI.
 */
function mayInstall(env: NodeJS.ProcessEnv, uid: number): boolean {
  if (env.GEPA_TEST_SETUP === 'install') return true;
  if (env.GEPA_TEST_SETUP === 'skip') return false;
  return uid === 0 || inCi(env);
}

/** Installs or reports each missing program; 1 when CI lacks one (or GEPA_TEST_SETUP is not a known value), else 0. */
export function runTestSetup({ env, install, uid, log }: TestSetupOptions): number {
  if (env.GEPA_TEST_SETUP !== undefined && !['install', 'skip'].includes(env.GEPA_TEST_SETUP)) {
    log(`GEPA_TEST_SETUP must be 'install' or 'skip', got '${env.GEPA_TEST_SETUP}'`);
    return 1;
  }
  const installing = mayInstall(env, uid);
  let stillMissing = 0;
  for (const program of TEST_PROGRAMS) {
    if (program.missing(env) === null) continue;
    if (installing) {
      log(`setting up ${program.what}: ${program.setup}`);
      install(program);
    }
    const reason = program.missing(env);
    if (reason === null) continue;
    stillMissing++;
    log(skipLine(program, reason, inCi(env)));
  }
  if (stillMissing > 0 && inCi(env)) {
    log(`CI=true: ${stillMissing} program(s) the tests need could not be set up; failing instead of skipping`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  process.exitCode = runTestSetup({
    env: process.env,
    uid: process.getuid?.() ?? -1,
    install: (program) => spawnSync('bash', ['-c', program.setup], { cwd: ROOT, stdio: 'inherit' }).status === 0,
    log: (line) => console.log(`npm test: ${line}`),
  });
}
