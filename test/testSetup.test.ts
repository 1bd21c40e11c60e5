// `npm test`'s first step (scripts/testSetup.ts) on a machine without gepa, Chromium, redis-server,
// iproute2 or the model, simulated by an environment that points every lookup into an empty folder: one
// line per missing program naming the tests it skips and the command that sets it up, exit 0;
// as root it runs each setup command first; under CI=true whatever is still missing fails it.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTestSetup } from '../scripts/testSetup.js';
import { haveProgram, TEST_PROGRAMS, type ProgramName, type TestProgram } from './support/testPrograms.js';

/** An environment in which nothing is installed, and how to install each program into it. */
function bareMachine() {
  const dir = mkdtempSync(join(tmpdir(), 'gepa-test-setup-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const env: NodeJS.ProcessEnv = { PATH: bin, GEPA_SRC: join(dir, 'gepa-src'), GEPA_TEST_CHROMIUM: join(dir, 'chromium'), GEPA_TEST_GGUF: join(dir, 'gemma.gguf') };
  const executable = (path: string) => {
    writeFileSync(path, '#!/bin/sh\n');
    chmodSync(path, 0o755);
  };
  const installers: Record<ProgramName, () => void> = {
    gepa: () => {
      executable(join(bin, 'python3'));
      mkdirSync(join(dir, 'gepa-src', 'gepa'), { recursive: true });
      writeFileSync(join(dir, 'gepa-src', 'gepa', '__init__.py'), '');
    },
    chromium: () => executable(join(dir, 'chromium')),
    redis: () => executable(join(bin, 'redis-server')),
    iproute2: () => executable(join(bin, 'ip')),
    model: () => writeFileSync(join(dir, 'gemma.gguf'), 'GGUF'),
  };
  return { env, installers };
}

function setup(env: NodeJS.ProcessEnv, uid: number, install: (p: TestProgram) => boolean = () => false) {
  const lines: string[] = [];
  const installed: string[] = [];
  const code = runTestSetup({ env, uid, log: (line) => lines.push(line), install: (p) => (installed.push(p.name), install(p)) });
  return { code, lines, installed };
}

describe("npm test's setup step", () => {
  it('without the programs and without root: one line per missing program (what it skips, the command), installs nothing, exit 0', () => {
    const { env } = bareMachine();
    const { code, lines, installed } = setup(env, 1000);
    expect(code).toBe(0);
    expect(installed).toEqual([]);
    expect(lines).toEqual([
      `skipped test/referenceGepa.test.ts: gepa 0.1.4 (Python), the reference the differential tests run is missing (python3 is not on PATH); set it up with: bash .ci/setup-gepa.sh`,
      `skipped test/report.test.ts, test/reportLayout.test.ts, test/workbench.test.ts: Chromium, which renders report.html and the workbench is missing (no ${env.GEPA_TEST_CHROMIUM}); set it up with: bash .ci/setup-chromium.sh`,
      'skipped test/bullmqExecutor.test.ts, test/bullmqResume.test.ts, test/bullmqStalls.test.ts, test/bullmqRedisRestart.test.ts, test/runConfigAdapter.test.ts, test/fleetShare.test.ts, test/queueRedis.test.ts: redis-server, for the BullMQ executor is missing (no redis-server on PATH and GEPA_TEST_REDIS_URL is unset); set it up with: bash .ci/setup-redis.sh',
      'skipped test/fleetFaults.test.ts: iproute2 (`ip`), which puts Redis and workers in network namespaces of their own (as root) is missing (no `ip` on PATH); set it up with: bash .ci/setup-iproute2.sh',
      `skipped test/localLanguageModel.test.ts, test/localModelRun.test.ts: Gemma 3 270M (GGUF), the real model is missing (no ${env.GEPA_TEST_GGUF}); set it up with: bash .ci/setup-gemma.sh`,
    ]);
  });

  it('as root it runs each missing setup command, and the tests then run: no skip line', () => {
    const { env, installers } = bareMachine();
    const { code, lines, installed } = setup(env, 0, (p) => (installers[p.name](), true));
    expect(code).toBe(0);
    expect(installed).toEqual(['gepa', 'chromium', 'redis', 'iproute2', 'model']);
    expect(lines).toEqual(TEST_PROGRAMS.map((p) => `setting up ${p.what}: ${p.setup}`));
    for (const name of installed as ProgramName[]) expect(haveProgram(name, env)).toBe(true);
  });

  it('a program installed already is left alone; only the missing one is set up', () => {
    const { env, installers } = bareMachine();
    installers.gepa();
    installers.chromium();
    installers.iproute2();
    installers.model();
    expect(setup({ ...env, GEPA_TEST_SETUP: 'install' }, 1000, (p) => (installers[p.name](), true)).installed).toEqual(['redis']);
  });

  it("GEPA_TEST_SETUP=skip installs nothing even as root; a GEPA_TEST_REDIS_URL stands for redis-server", () => {
    const { env } = bareMachine();
    const { code, lines, installed } = setup({ ...env, GEPA_TEST_SETUP: 'skip', GEPA_TEST_REDIS_URL: 'redis://127.0.0.1:1' }, 0);
    expect([code, installed]).toEqual([0, []]);
    expect(lines.map((l) => l.split(':')[0])).toEqual(['skipped test/referenceGepa.test.ts', 'skipped test/report.test.ts, test/reportLayout.test.ts, test/workbench.test.ts', 'skipped test/fleetFaults.test.ts', 'skipped test/localLanguageModel.test.ts, test/localModelRun.test.ts']);
    expect(setup({ ...env, GEPA_TEST_SETUP: 'yes' }, 0).code).toBe(1);
  });

  it('under CI=true it tries to install, and what is still missing fails the step instead of skipping', () => {
    const { env, installers } = bareMachine();
    const { code, lines, installed } = setup({ ...env, CI: 'true' }, 1000, (p) => (p.name === 'redis' ? false : (installers[p.name](), true)));
    expect(code).toBe(1);
    expect(installed).toEqual(['gepa', 'chromium', 'redis', 'iproute2', 'model']);
    expect(lines.filter((l) => !l.startsWith('setting up'))).toEqual([
      'cannot run test/bullmqExecutor.test.ts, test/bullmqResume.test.ts, test/bullmqStalls.test.ts, test/bullmqRedisRestart.test.ts, test/runConfigAdapter.test.ts, test/fleetShare.test.ts, test/queueRedis.test.ts: redis-server, for the BullMQ executor is missing (no redis-server on PATH and GEPA_TEST_REDIS_URL is unset); set it up with: bash .ci/setup-redis.sh',
      'CI=true: 1 program(s) the tests need could not be set up; failing instead of skipping',
    ]);
  });

  it('a test file asking for a missing program skips outside CI and fails under CI=true', () => {
    const { env } = bareMachine();
    expect(haveProgram('chromium', env)).toBe(false);
    expect(() => haveProgram('chromium', { ...env, CI: 'true' })).toThrow(`CI=true but Chromium, which renders report.html and the workbench is missing (no ${env.GEPA_TEST_CHROMIUM}): bash .ci/setup-chromium.sh sets it up`);
    expect(haveProgram('chromium', { ...env, CI: 'false' })).toBe(false);
  });

  it('is the first step of `npm test`, and CI runs `npm test` under CI=true', () => {
    const root = join(import.meta.dirname, '..');
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.test).toMatch(/^tsx scripts\/testSetup\.ts && /);
    expect(scripts['test:setup']).toBe('GEPA_TEST_SETUP=install tsx scripts/testSetup.ts');
    const ci = readFileSync(join(root, '.ci', 'run'), 'utf8');
    expect(ci).toContain('export CI=true\nnpm test\n');
    // Every program's setup command is a script of this repository.
    for (const p of TEST_PROGRAMS) expect(() => readFileSync(join(root, p.setup.replace(/^bash /, '')))).not.toThrow();
  });
});
