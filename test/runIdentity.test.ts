// A durable run records what identifies its function-valued parts (runIdentity) and refuses to
// resume when it changed, naming the field; a function reflection model without a name cannot
// be checked, so such a run is refused at its start (it could never be resumed).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { ConfigError } from '../src/index.js';
import { test } from './support/toyRun.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-identity-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(scratch, `run-${++dirs}`);

describe('runIdentity on resume', () => {
  test('a function reflection model without a name: refused at the start, saying how to name it, nothing written or paid', async ({ toyRun }) => {
    const runDir = freshDir();
    const error = await toyRun({ runDir, maxMetricCalls: 40 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('runIdentity.reflectionLm: a run directory must be resumable');
    expect((error as Error).message).toContain("runIdentity: { reflectionLm: 'my-model@v1' }");
    expect(existsSync(runDir)).toBe(false);
  });

  test('a run directory an earlier version recorded without a name is still refused on resume', async ({ toyRun }) => {
    const runDir = freshDir();
    await toyRun({ runDir, maxMetricCalls: 40, runIdentity: { reflectionLm: 'toy' } });
    const path = join(runDir, 'config.json');
    const stored = JSON.parse(readFileSync(path, 'utf8')) as { settings: Record<string, unknown> };
    writeFileSync(path, JSON.stringify({ ...stored, settings: { ...stored.settings, reflectionLm: 'function' } }));
    // Naming it now does not help: the recorded run has no name to compare with.
    await expect(toyRun({ runDir, maxMetricCalls: 40, runIdentity: { reflectionLm: 'toy' } })).rejects.toThrow(/reflectionLm: a function without a name in the run directory/);
  });

  test('a named reflection model resumes under the same name and is refused under another', async ({ toyRun }) => {
    const runDir = freshDir();
    const first = await toyRun({ runDir, maxMetricCalls: 40, runIdentity: { reflectionLm: 'toy-v1', adapter: 'toy-adapter@1' } });
    const again = await toyRun({ runDir, maxMetricCalls: 40, runIdentity: { reflectionLm: 'toy-v1', adapter: 'toy-adapter@1' } });
    expect(again.result.metricCalls).toBe(first.result.metricCalls);
    await expect(toyRun({ runDir, maxMetricCalls: 40, runIdentity: { reflectionLm: 'toy-v2', adapter: 'toy-adapter@1' } })).rejects.toThrow(
      'reflectionLm: "toy-v1" in the run directory, "toy-v2" now',
    );
    await expect(toyRun({ runDir, maxMetricCalls: 40, runIdentity: { reflectionLm: 'toy-v1', adapter: 'toy-adapter@2' } })).rejects.toThrow(
      'adapter: "toy-adapter@1" in the run directory, "toy-adapter@2" now',
    );
    await expect(toyRun({ runDir, maxMetricCalls: 40, runIdentity: { reflectionLm: 'toy-v1' } })).rejects.toThrow('adapter: "toy-adapter@1" in the run directory, not set now');
  });

  test('an identity field named like a setting is reported as runIdentity.<field>', async ({ toyRun }) => {
    const runDir = freshDir();
    await toyRun({ runDir, maxMetricCalls: 40, runIdentity: { reflectionLm: 'toy', seed: 'a' } });
    await expect(toyRun({ runDir, maxMetricCalls: 40, runIdentity: { reflectionLm: 'toy', seed: 'b' } })).rejects.toThrow('runIdentity.seed: "a" in the run directory, "b" now');
  });
});
