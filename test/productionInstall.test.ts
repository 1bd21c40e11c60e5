// A clone installed for running only: `npm ci --omit=dev` has no TypeScript, and must still exit 0
// (prepare says how to build instead of failing with "tsc: not found"). Offline: npm takes every
// tarball from the cache that `npm ci` filled before the tests.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const exec = promisify(execFile);
// Run by `npm test`, we inherit npm's description of this package; the clone's npm must not see it.
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_(package_|lifecycle_|config_local_prefix$)/.test(key)));

let clone: string | undefined;
afterAll(async () => {
  if (clone) await rm(clone, { recursive: true, force: true });
});

describe('npm ci --omit=dev in a clean clone', () => {
  it('exits 0, says how to build, and leaves the runtime dependencies installed', async () => {
    clone = await mkdtemp(join(tmpdir(), 'gepa-omit-dev-'));
    // What a clone holds that install reads: the manifest, the lock, the prepare script and the sources.
    for (const entry of ['package.json', 'package-lock.json', 'scripts', 'src', 'machines', 'tsconfig.json', 'tsconfig.build.json']) {
      await cp(join(ROOT, entry), join(clone, entry), { recursive: true });
    }
    const { stderr } = await exec('npm', ['ci', '--omit=dev', '--offline', '--no-audit', '--no-fund'], { cwd: clone, env: npmEnv });
    expect(stderr).toContain('TypeScript is not installed (npm ci --omit=dev?), so dist/ was not built');
    expect(existsSync(join(clone, 'node_modules/xstate/package.json'))).toBe(true);
    expect(existsSync(join(clone, 'node_modules/typescript'))).toBe(false);
  }, 180_000);
});
