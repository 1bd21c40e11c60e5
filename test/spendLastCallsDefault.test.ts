// spendLastCalls became the default (issue 39). A run directory started with it off (`false` in
// config.json, or absent from a record older than the option) resumes with it off when the
// option is left unset, and ends with the result of an uninterrupted run with it off; set
// explicitly to `true` it is refused, naming the field and both values.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveSettings } from '../src/config/runSettings.js';
import type { DemoExample } from '../src/demo/demoTask.js';
import { optimize, type OptimizeConfig } from '../src/index.js';
import { essence } from './support/demoRun.js';
import { forgetSetting, recordOf, resumableDemoConfig } from './support/resumableDemo.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-spend-last-calls-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(scratch, `run-${++dirs}`);

/** The demo task at zero latency, single, 100 calls (five valsets of 20), seed 4 (a run the option changes: 78 calls off, 100 on). */
const config = (runDir: string | undefined, extra: Partial<OptimizeConfig<DemoExample>> = {}, stopAfter = Infinity) =>
  resumableDemoConfig(runDir, { schedule: { kind: 'batched', parents: 1, perParent: 1 }, maxMetricCalls: 100, seed: 4, ...extra }, stopAfter, { trainSize: 60, valSize: 20, testSize: 10 });

describe('spendLastCalls default', () => {
  it('is on; a new run records it, and it changes the run', async () => {
    expect(resolveSettings(config(undefined)).spendLastCalls).toBe(true);
    expect(resolveSettings(config(undefined, { spendLastCalls: false })).spendLastCalls).toBe(false);
    const dir = freshDir();
    const on = await optimize(config(dir));
    expect(recordOf(dir).settings.spendLastCalls).toBe(true);
    const off = await optimize(config(undefined, { spendLastCalls: false }));
    expect(on.metricCalls).toBeGreaterThanOrEqual(99);
    expect(off.metricCalls).toBeLessThan(95);
    expect(essence(on)).toEqual(essence(await optimize(config(undefined, { spendLastCalls: true }))));
  });

  for (const written of ['recorded', 'absent'] as const) {
    it(`a run started with it off (${written} in config.json) resumes with it off when the option is left unset`, async () => {
      const uninterrupted = await optimize(config(undefined, { spendLastCalls: false }));
      const dir = freshDir();
      const stopped = await optimize(config(dir, { spendLastCalls: false }, 40));
      expect(stopped.stopReason).toBe('stopped');
      expect(stopped.metricCalls).toBeLessThan(uninterrupted.metricCalls);
      if (written === 'absent') forgetSetting(dir, 'spendLastCalls');
      await expect(optimize(config(dir, { spendLastCalls: true }))).rejects.toThrow(/spendLastCalls: false in the run directory, true now/);
      const resumed = await optimize(config(dir));
      expect(essence(resumed)).toEqual(essence(uninterrupted));
      expect(resumed.metricCalls).toBeLessThan(95);
    });
  }
});
