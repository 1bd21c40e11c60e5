// A durable run records what identifies its function-valued parts (runIdentity) and refuses to
// resume when it changed, naming the field; a function reflection model without a name cannot
// be checked, so such a run is refused on resume rather than mixing another model's work in.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
  test('a function reflection model without a name: the run is recorded, and its resume refused with a message saying how to name it', async ({ toyRun }) => {
    const runDir = freshDir();
    await toyRun({ runDir, maxMetricCalls: 40 });
    const stored = JSON.parse(readFileSync(join(runDir, 'config.json'), 'utf8')) as { settings: Record<string, unknown> };
    expect(stored.settings.reflectionLm).toBe('function');
    const error = await toyRun({ runDir, maxMetricCalls: 40 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('reflectionLm: a function without a name in the run directory');
    expect((error as Error).message).toContain('runIdentity.reflectionLm');
    // Naming it now does not help: the recorded run has no name to compare with.
    await expect(toyRun({ runDir, maxMetricCalls: 40, runIdentity: { reflectionLm: 'toy' } })).rejects.toThrow(/a function without a name/);
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
